/**
 * OOXML presentation reader: pure TypeScript, no LibreOffice. `probePresentation` answers during
 * an upload request; `readPresentation` extracts the structure for the course generator;
 * `extractPart` streams images and media out of the package.
 */
export { REJECTION_MESSAGES } from './ooxml.errors.ts'
export { type ExtractOptions, extractPart } from './part.extractor.ts'
export { probePresentation } from './presentation.probe.ts'
export { readPresentation } from './presentation.reader.ts'
export type * from './presentation.types.ts'
export type { ReaderOptions } from './reader.options.ts'
export { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-archive.reader.ts'
