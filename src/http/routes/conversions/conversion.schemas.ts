import { type Static, Type } from 'typebox'
import { NextCursor, NullableTimestamp, PaginationQuery, Timestamp } from '../../schemas/common.ts'

const Status = Type.Union(
  [
    Type.Literal('queued'),
    Type.Literal('processing'),
    Type.Literal('completed'),
    Type.Literal('failed'),
  ],
  { description: 'queued → processing → completed | failed' },
)

const NullableString = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description })

export const ConversionJob = Type.Object(
  {
    job_id: Type.String({ description: 'Conversion job id (cnv_…)' }),
    status: Status,
    title: Type.String({ description: 'Course title' }),
    source_filename: Type.String(),
    target_scorm_version: Type.Union([Type.Literal('1.2'), Type.Literal('2004')]),
    slide_count: Type.Integer({ description: 'Slides in the course (the visible slides)' }),
    hidden_slide_count: Type.Integer({ description: 'Hidden slides, left out of the course' }),
    progress: Type.Object({
      done: Type.Integer({ description: 'Slides rendered so far' }),
      total: Type.Integer(),
      percent: Type.Integer({ minimum: 0, maximum: 100 }),
    }),
    package_id: NullableString('The hosted package, once completed'),
    error: NullableString('What went wrong, once failed'),
    warnings: Type.Array(
      Type.Object({
        code: Type.String({ description: 'e.g. animations, hidden_slides, rendering_unavailable' }),
        message: Type.String(),
        slides: Type.Array(Type.Integer(), {
          description: 'Slide numbers in the presentation (hidden slides counted)',
        }),
      }),
      { description: 'What the course could not carry over' },
    ),
    rendering: Type.Union([Type.Literal('libreoffice'), Type.Literal('text_only'), Type.Null()], {
      description:
        'libreoffice: each slide as a picture plus its text; text_only: text, pictures and media without the slide layout',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    started_at: NullableTimestamp,
    finished_at: NullableTimestamp,
  },
  { $id: 'ConversionJob', title: 'ConversionJob' },
)
export type ConversionJob = Static<typeof ConversionJob>

export const ConversionList = Type.Object({
  jobs: Type.Array(Type.Ref('ConversionJob')),
  total: Type.Integer({ description: 'Jobs matching the filter, over all pages' }),
  next_cursor: NextCursor,
})
export type ConversionList = Static<typeof ConversionList, { ConversionJob: typeof ConversionJob }>

export const ConversionListQuery = Type.Intersect([
  PaginationQuery,
  Type.Object({ status: Type.Optional(Status) }),
])

export const JobIdParams = Type.Object({ jobId: Type.String() })

/**
 * Documents the multipart body. No `type: object` on purpose: the multipart plugin leaves
 * `request.body` undefined (the file is streamed), which this schema lets through.
 */
export const PresentationUpload = {
  properties: {
    file: {
      type: 'string',
      format: 'binary',
      description: 'The presentation: .pptx (also .pptm, .potx, .ppsx; macros never run)',
    },
    scorm_version: { type: 'string', enum: ['1.2', '2004'], default: '2004' },
    title: {
      type: 'string',
      maxLength: 300,
      description: "Course title; default the presentation's title, else its first slide's",
    },
  },
  required: ['file'],
}
