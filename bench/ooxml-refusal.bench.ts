/**
 * How fast a hostile .pptx is refused: a deck with a 24 MiB ZIP-bomb entry must be refused from
 * its central directory, before anything is inflated. Target: the median probe under 200 ms,
 * the slowest under 2 s (the old wall-clock bound of test/unit/conversions/ooxml-refusals).
 *
 *   node bench/ooxml-refusal.bench.ts           (ROUNDS=20 by default)
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { probePresentation } from '../src/modules/conversions/ooxml/index.ts'
import { deckEntries, tempDir, writeZip } from '../test/unit/conversions/pptx-builder.helper.ts'

const here = dirname(fileURLToPath(import.meta.url))
const rounds = Number(process.env.ROUNDS ?? 20)

const { dir, cleanup } = await tempDir()
try {
  const entries = deckEntries({ slides: [{ shapes: '' }] })
  entries['ppt/media/bomb.bin'] = Buffer.alloc(24 * 1024 * 1024)
  const path = await writeZip(join(dir, 'bomb.pptx'), entries)
  const samples: number[] = []
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now()
    const refused = await probePresentation(path).then(
      () => false,
      () => true,
    )
    samples.push(performance.now() - t0)
    if (!refused) throw new Error('the ZIP bomb was accepted')
  }
  const sorted = [...samples].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
  const slowest = sorted.at(-1) ?? Number.NaN
  const ok = median < 200 && slowest < 2000
  const result = { rounds, medianMs: median, slowestMs: slowest, load: loadavg(), ok }
  console.log(
    `ZIP-bomb refusal: median ${median.toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms ` +
      `over ${rounds} rounds (load ${loadavg()[0]?.toFixed(2)}) → ${ok ? 'OK' : 'SLOW'}`,
  )
  mkdirSync(join(here, 'results'), { recursive: true })
  writeFileSync(join(here, 'results', 'ooxml-refusal.json'), `${JSON.stringify(result, null, 2)}\n`)
  if (!ok) process.exitCode = 1
} finally {
  await cleanup()
}
