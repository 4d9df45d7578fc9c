import type { Mode } from '../schema.ts'

export type ConversionStatus = 'queued' | 'processing' | 'completed' | 'failed'

/** One .pptx → SCORM conversion job (the spec's "conversion job"; public id `cnv_…`). */
export interface ConversionsTable {
  id: string
  tenant_id: string
  mode: Mode
  status: ConversionStatus
  /** Course title: the request's, else the presentation's, else the file name. */
  title: string
  source_filename: string
  /** pptx, pptm, potx, potm, ppsx or ppsm. */
  source_format: string
  source_bytes: number
  /** The uploaded file while the job needs it; removed when the job ends. */
  source_blob_key: string
  target_scorm_version: '1.2' | '2004'
  /** Slides the course will have: the presentation's visible slides. */
  slide_count: number
  hidden_slide_count: number
  /** Slides rendered (or read, without LibreOffice) so far. */
  progress_done: number
  package_id: string | null
  /** User-facing reason when failed. */
  error: string | null
  /** JSON array of {code, message, slides}. */
  warnings: string
  /** How slides were carried over: pictures by LibreOffice plus text, or text only. */
  rendering: 'libreoffice' | 'text_only' | null
  /** The job-queue job running this conversion. */
  queue_job_id: string
  /** Allowance period (`YYYY-MM`) this conversion counts in; null when the plan is unlimited. */
  allowance_period: string | null
  created_at: string
  updated_at: string
  started_at: string | null
  finished_at: string | null
}

/** Conversions started per tenant and calendar month (UTC), for plans with a monthly allowance. */
export interface ConversionAllowancesTable {
  tenant_id: string
  /** `YYYY-MM`. */
  period: string
  used: number
}

export interface ConversionTables {
  conversions: ConversionsTable
  conversion_allowances: ConversionAllowancesTable
}
