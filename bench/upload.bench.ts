/**
 * Upload processing against `unzip -q` of the same file, and peak memory at two package sizes.
 * Target (issue 2): within 1.5× of unzip; peak RSS that does not grow with the package.
 *   npm run bench:upload            (≈100 MB / 2 000 files, and a 25 MB package for memory)
 * Ours includes what unzip does not do: validation, storing the original zip, and making the
 * whole package durable (one filesystem flush) before it is registered.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import yazl from 'yazl'

const here = dirname(fileURLToPath(import.meta.url))
const node = process.execPath

/** A SCORM 1.2 package of `files` files totalling about `megabytes` MB (mostly incompressible). */
async function generatePackage(path: string, megabytes: number, files: number): Promise<void> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(
    Buffer.from(`<?xml version="1.0"?>
<manifest identifier="bench" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="o"><organization identifier="o"><title>Bench</title>
    <item identifier="i" identifierref="r"><title>Start</title></item></organization></organizations>
  <resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco" href="index.html">
    <file href="index.html"/></resource></resources>
</manifest>`),
    'imsmanifest.xml',
  )
  zip.addBuffer(Buffer.from('<html><body>bench</body></html>'), 'index.html')
  const perFile = Math.floor((megabytes * 1024 * 1024) / files)
  for (let i = 0; i < files; i++) {
    // Media-like files are incompressible; a third are text that compresses like real HTML/JS.
    const data =
      i % 3 === 0
        ? Buffer.from(`<p>${randomBytes(perFile / 4).toString('hex')}</p>`.repeat(1))
        : randomBytes(perFile)
    zip.addBuffer(data, `assets/${i % 40}/file-${i}.${i % 3 === 0 ? 'html' : 'bin'}`, {
      compress: i % 3 === 0,
    })
  }
  zip.end()
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(path)).on('finish', resolve).on('error', reject)
  })
}

/** Untimed: writes left dirty by the previous run must not be flushed inside the next one. */
function settle(): void {
  execFileSync('sync')
}

function timeUnzip(zipPath: string): number {
  settle()
  const out = mkdtempSync(join(tmpdir(), 'cp-unzip-'))
  const started = process.hrtime.bigint()
  execFileSync('unzip', ['-q', zipPath, '-d', out])
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  rmSync(out, { recursive: true, force: true })
  return seconds
}

function runOurs(zipPath: string): { seconds: number; files: number; peakRssMiB: number } {
  settle()
  const result = spawnSync(node, [join(here, 'upload.child.ts'), zipPath], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(result.stderr)
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}')
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

const work = mkdtempSync(join(tmpdir(), 'cp-bench-upload-'))
try {
  const big = join(work, 'big.zip')
  const small = join(work, 'small.zip')
  await generatePackage(big, 100, 2000)
  await generatePackage(small, 25, 500)
  const rounds = 3
  const unzipTimes: number[] = []
  const ours: Array<ReturnType<typeof runOurs>> = []
  for (let i = 0; i < rounds; i++) {
    unzipTimes.push(timeUnzip(big))
    ours.push(runOurs(big))
  }
  const smallRun = runOurs(small)
  const oursSeconds = median(ours.map((r) => r.seconds))
  const unzipSeconds = median(unzipTimes)
  const result = {
    package: { bytes: statSync(big).size, files: ours[0]?.files },
    unzipSeconds,
    oursSeconds,
    ratio: oursSeconds / unzipSeconds,
    target: 'ratio <= 1.5',
    peakRssMiB: {
      '100MB': Math.max(...ours.map((r) => r.peakRssMiB)),
      '25MB': smallRun.peakRssMiB,
    },
  }
  console.log(
    `package: ${(result.package.bytes / 1e6).toFixed(1)} MB zip, ${result.package.files} files`,
  )
  console.log(`unzip -q:   ${unzipSeconds.toFixed(2)} s (median of ${rounds})`)
  console.log(
    `courseport: ${oursSeconds.toFixed(2)} s (median of ${rounds}) — ${result.ratio.toFixed(2)}× unzip (target ≤ 1.5×)`,
  )
  console.log(
    `peak RSS:   ${result.peakRssMiB['100MB'].toFixed(0)} MiB at 100 MB, ${result.peakRssMiB['25MB'].toFixed(0)} MiB at 25 MB`,
  )
  const resultsDir = join(here, 'results')
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(join(resultsDir, 'upload.json'), `${JSON.stringify(result, null, 2)}\n`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
