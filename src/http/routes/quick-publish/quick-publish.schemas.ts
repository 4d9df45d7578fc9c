import { type Static, Type } from 'typebox'
import { TenantIdField, Timestamp } from '../../schemas/common.ts'

const ScormVersion = Type.Union([Type.Literal('1.2'), Type.Literal('2004')])

export const QuickPublishSlide = Type.Object({
  title: Type.String({
    maxLength: 300,
    description: 'Slide title (heading and table of contents)',
  }),
  content: Type.String({
    maxLength: 20_000,
    description:
      'Slide text. Supports **bold**, *italic*, and bullet lists written as lines starting with "- " (indent two spaces per level). Anything else, HTML included, is shown as text.',
  }),
  image_url: Type.Optional(
    Type.String({
      maxLength: 2048,
      description:
        'https URL of a PNG, JPEG, GIF, WebP or AVIF image (at most 10 MiB by default); fetched once and stored in the package',
    }),
  ),
  image_alt: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'Text alternative of the image; default the slide title; "" marks it decorative',
    }),
  ),
})

export const QuickPublishBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 300, description: 'Course title' }),
  slides: Type.Array(QuickPublishSlide, { minItems: 1, maxItems: 200 }),
  scorm_version: Type.Optional(
    Type.Union([ScormVersion], { description: 'Default 2004 (4th Edition)', default: '2004' }),
  ),
  tenant_id: Type.Optional(TenantIdField),
})

export const QuickPublishResult = Type.Object(
  {
    package_id: Type.String(),
    title: Type.String(),
    scorm_version: ScormVersion,
    slide_count: Type.Integer(),
    created_at: Timestamp,
    package_url: Type.String({
      description: 'Signed, expiring link to the SCORM zip (24 h by default); no API key needed',
    }),
    launch_url: Type.String({
      description:
        'Signed launch link of a preview session (learner "courseport-preview") in the hosted player',
    }),
  },
  { $id: 'QuickPublishResult', title: 'QuickPublishResult' },
)
export type QuickPublishResult = Static<typeof QuickPublishResult>
