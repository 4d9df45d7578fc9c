import type { ConversionStatus, ConversionsTable } from '../../infra/db/tables/conversions.ts'

/** A warning about something the course could not carry over from the presentation. */
export interface ConversionWarningView {
  code: string
  message: string
  /** Slide numbers of the presentation (hidden slides counted), empty when deck-wide. */
  slides: number[]
}

/** The conversion job as the API returns it (spec: job_id, status, slide_count, …). */
export interface ConversionView {
  job_id: string
  status: ConversionStatus
  title: string
  source_filename: string
  target_scorm_version: '1.2' | '2004'
  /** Slides in the course: the presentation's visible slides. */
  slide_count: number
  /** Hidden slides of the presentation, left out of the course. */
  hidden_slide_count: number
  progress: { done: number; total: number; percent: number }
  /** Set once completed. */
  package_id: string | null
  /** Set once failed: what went wrong and what to do about it. */
  error: string | null
  warnings: ConversionWarningView[]
  /** `libreoffice`: slide pictures plus text; `text_only`: built from the text and pictures. */
  rendering: 'libreoffice' | 'text_only' | null
  created_at: string
  updated_at: string
  started_at: string | null
  finished_at: string | null
}

function parseWarnings(json: string): ConversionWarningView[] {
  try {
    const value: unknown = JSON.parse(json)
    return Array.isArray(value) ? (value as ConversionWarningView[]) : []
  } catch {
    return []
  }
}

export function toConversionView(row: ConversionsTable): ConversionView {
  const total = Number(row.slide_count)
  const done = row.status === 'completed' ? total : Math.min(total, Number(row.progress_done))
  return {
    job_id: row.id,
    status: row.status,
    title: row.title,
    source_filename: row.source_filename,
    target_scorm_version: row.target_scorm_version,
    slide_count: total,
    hidden_slide_count: Number(row.hidden_slide_count),
    progress: { done, total, percent: total === 0 ? 0 : Math.floor((done / total) * 100) },
    package_id: row.package_id,
    error: row.error,
    warnings: parseWarnings(row.warnings),
    rendering: row.rendering,
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  }
}
