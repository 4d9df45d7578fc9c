import { WarningCollector } from './conversion-warnings.collector.ts'
import { readCoreProperties } from './core-properties.parser.ts'
import type { PresentationContent, SlideContent } from './presentation.types.ts'
import { openPresentationPackage } from './presentation-package.opener.ts'
import { readPresentationPart } from './presentation-part.parser.ts'
import { guarded, type ReaderOptions } from './reader.options.ts'
import { readSlide, type SlideReadContext } from './slide.reader.ts'
import { partKey, resolveLimits } from './zip-archive.reader.ts'

/**
 * Reads the whole structure of a PowerPoint package for navigation, search and accessibility:
 * slides in presentation order with hidden flags, titles, text, tables, notes, images, media,
 * links, charts/SmartArt/OLE objects, and warnings for what a web course cannot carry over.
 * External targets are reported, never fetched; macros are never run.
 */
export function readPresentation(
  path: string,
  options?: ReaderOptions,
): Promise<PresentationContent> {
  const limits = resolveLimits(options?.limits)
  return guarded(async () => {
    const { pkg, main } = await openPresentationPackage(path, limits)
    try {
      const prs = await readPresentationPart(pkg, main)
      const warnings = new WarningCollector()
      for (const m of prs.missing) warnings.add('missing_parts', null, m)
      if (prs.hasMacros) warnings.add('macros')
      const numbers = new Map(prs.slideParts.map((p, i) => [partKey(p), i + 1]))
      const ctx: SlideReadContext = {
        pkg,
        slideNumberOf: (part) => numbers.get(partKey(part)) ?? null,
        styleCache: new Map(),
        warnings,
      }
      const slides: SlideContent[] = []
      for (const [i, part] of prs.slideParts.entries())
        slides.push(await readSlide(part, i + 1, ctx))
      const core = await readCoreProperties(pkg)
      if (core.damaged) warnings.add('missing_parts', null, core.damaged)
      const hiddenCount = slides.filter((s) => s.hidden).length
      if (slides.length === 0) warnings.add('no_slides')
      else if (hiddenCount === slides.length) warnings.add('no_visible_slides')
      const coreTitle = core.properties?.title ?? null
      const slideTitle = (slides.find((s) => !s.hidden) ?? slides[0])?.title ?? null
      return {
        format: main.format,
        title: coreTitle ?? slideTitle,
        titleSource: coreTitle ? 'core' : slideTitle ? 'slide' : null,
        properties: core.properties,
        slideSize: prs.slideSize,
        slideCount: slides.length,
        visibleSlideCount: slides.length - hiddenCount,
        hiddenSlideCount: hiddenCount,
        slides,
        warnings: warnings.list(),
      }
    } finally {
      pkg.close()
    }
  })
}
