/**
 * The course generator shared by quick publish and .pptx conversion: slides in, a SCORM 1.2 or
 * 2004 4th Edition zip out (one SCO with its own HTML5 player, every asset inside the package).
 *
 *   const blocks = parseSlideMarkdown('**Hello** *world*\n- one\n  - nested')   // quick publish
 *   const blocks = blocksFromOoxmlSlide(slideContent)                           // conversion
 *   const slide = slideInputFromOoxml(slideContent, (part) => extractPart(pptxPath, part))
 *   await generateCourse({ title, scormVersion: '2004', slides: [{ title, blocks, images: [] }] },
 *     '/tmp/course.zip')
 */

export { generateCourse } from './course.generator.ts'
export { isWebImageType, isWebMediaType } from './course.plan.ts'
export type * from './course.types.ts'
export { parseInline } from './inline-markdown.parser.ts'
export { parseSlideMarkdown } from './markdown.parser.ts'
export { blocksFromOoxmlSlide } from './ooxml-blocks.mapper.ts'
export { type PartOpener, slideInputFromOoxml } from './ooxml-slide.mapper.ts'
export { playerScript } from './player-script.bundler.ts'
