import { WarningCollector } from './conversion-warnings.collector.ts'
import { readCoreProperties } from './core-properties.parser.ts'
import type { OoxmlPackage } from './ooxml.package.ts'
import { NO_RELATIONSHIPS } from './opc.parts.ts'
import { NO_STYLES } from './placeholder-styles.resolver.ts'
import type { PresentationProbe } from './presentation.types.ts'
import { openPresentationPackage } from './presentation-package.opener.ts'
import { hiddenFromHead, readPresentationPart } from './presentation-part.parser.ts'
import { guarded, type ReaderOptions } from './reader.options.ts'
import { parseShapeTree } from './slide-shapes.parser.ts'
import { oneLine } from './text-body.parser.ts'
import { attr, isOff, path } from './xml-tree.query.ts'
import { resolveLimits } from './zip-archive.reader.ts'

/**
 * Quick check for use while an upload request is being answered: is this a readable,
 * unencrypted PowerPoint package, how many slides does it show, and what is it called?
 * Reads the ZIP directory, the package and presentation parts, the first bytes of each slide,
 * core properties and at most one whole slide (for a title). Refuses with an `unprocessable`
 * AppError whose message tells the user what to do and whose `details.reason` names the case.
 *
 * It does not parse every slide, so a deck whose slide bodies are damaged passes the probe and
 * is refused later by `readPresentation`.
 */
export function probePresentation(
  path: string,
  options?: ReaderOptions,
): Promise<PresentationProbe> {
  const limits = resolveLimits(options?.limits)
  return guarded(async () => {
    const { pkg, main } = await openPresentationPackage(path, limits)
    try {
      const prs = await readPresentationPart(pkg, main)
      const warnings = new WarningCollector()
      for (const m of prs.missing) warnings.add('missing_parts', null, m)
      if (prs.hasMacros) warnings.add('macros')
      const hidden = await mapLimited(prs.slideParts, HEAD_CONCURRENCY, (part) =>
        isHidden(pkg, part),
      )
      const core = await readCoreProperties(pkg)
      if (core.damaged) warnings.add('missing_parts', null, core.damaged)
      let title = core.properties?.title ?? null
      if (!title) {
        const first = hidden.indexOf(false)
        const part = prs.slideParts[first === -1 ? 0 : first]
        title = part ? await slideTitle(pkg, part) : null
      }
      const hiddenCount = hidden.filter(Boolean).length
      if (hidden.length === 0) warnings.add('no_slides')
      else if (hiddenCount === hidden.length) warnings.add('no_visible_slides')
      return {
        format: main.format,
        title,
        slideCount: hidden.length,
        visibleSlideCount: hidden.length - hiddenCount,
        hiddenSlideCount: hiddenCount,
        warnings: warnings.list(),
      }
    } finally {
      pkg.close()
    }
  })
}

/** Slide heads are tiny reads; overlapping a few hides the I/O latency. */
const HEAD_CONCURRENCY = 8

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>) {
  const out: R[] = new Array(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++
      try {
        out[i] = await fn(items[i] as T)
      } catch (err) {
        failed = true // stop the other workers before the package is closed
        throw err
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

async function isHidden(pkg: OoxmlPackage, part: string): Promise<boolean> {
  const fromHead = await hiddenFromHead(pkg, part)
  return fromHead ?? isOff(attr(await pkg.xml(part), 'show'))
}

async function slideTitle(pkg: OoxmlPackage, part: string): Promise<string | null> {
  const root = await pkg.xml(part)
  const shapes = parseShapeTree(path(root, 'p:cSld', 'p:spTree'), {
    rels: NO_RELATIONSHIPS,
    parts: pkg,
    styles: NO_STYLES,
    slideNumberOf: () => null,
  })
  const block = shapes.blocks.find((b) => b.kind === 'text' && b.role === 'title')
  return block?.kind === 'text' ? oneLine(block.paragraphs) || null : null
}
