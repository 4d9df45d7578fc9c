import { blocksHtml, blocksText } from './blocks-html.renderer.ts'
import type { CoursePlan } from './course.plan.ts'

/**
 * course.json: the course's content as data, for search indexing and tools. The player does not
 * load it (index.html already holds every slide), so a course also plays from the file system.
 * `html` is the same escaped fragment index.html shows.
 */
export function courseJson(plan: CoursePlan): string {
  return `${JSON.stringify(
    {
      format: 'courseport-course',
      formatVersion: 1,
      title: plan.title,
      scormVersion: plan.version === '2004' ? '2004 4th Edition' : '1.2',
      language: plan.language,
      launch: 'index.html',
      slides: plan.slides.map((s) => ({
        number: s.number,
        id: s.id,
        title: s.title,
        text: blocksText(s.blocks),
        html: blocksHtml(s.blocks, s.number),
        notes: s.notes,
        images: s.images.map((i) => ({ src: i.path, alt: i.altText })),
        picture: s.rendered,
        media: s.media.map((m) => ({
          src: m.path,
          kind: m.kind,
          title: m.title,
          poster: m.poster,
        })),
      })),
    },
    null,
    2,
  )}\n`
}
