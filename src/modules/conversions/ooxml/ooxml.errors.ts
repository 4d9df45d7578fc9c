import { AppError } from '../../../shared/app-error.ts'
import type { RejectionReason } from './presentation.types.ts'

/** User-facing wording, one per reason; callers may add specifics (e.g. the damaged part). */
export const REJECTION_MESSAGES: Readonly<Record<RejectionReason, string>> = {
  empty: 'The uploaded file is empty.',
  not_zip:
    'This file is not a PowerPoint presentation (.pptx). Save the presentation in PowerPoint as .pptx and upload it again.',
  pdf: 'This is a PDF file, not a PowerPoint presentation. Upload the original .pptx file.',
  legacy_ppt:
    'This is an older PowerPoint 97-2003 file (.ppt). Open it in PowerPoint, save it as .pptx and upload it again.',
  encrypted:
    'This presentation is password-protected. Remove the password in PowerPoint (File > Info > Protect Presentation), save, and upload it again.',
  legacy_office:
    'This is an older Microsoft Office file (OLE compound document), not a PowerPoint .pptx presentation.',
  keynote:
    'This is an Apple Keynote file. In Keynote choose File > Export To > PowerPoint, then upload the .pptx file.',
  opendocument:
    'This is an OpenDocument file (.odp). Save it as PowerPoint (.pptx) and upload that file.',
  not_presentation: 'This file is a ZIP archive but not a PowerPoint presentation.',
  corrupt:
    'The presentation is damaged or incomplete (the upload may have been cut off). Open it in PowerPoint, save it again and re-upload.',
  too_large:
    'The presentation expands to more data than allowed and was refused as unsafe (possible ZIP bomb).',
}

/** The one way this module refuses a file: `unprocessable` with `details.reason`. */
export function rejection(
  reason: RejectionReason,
  message: string = REJECTION_MESSAGES[reason],
  extra: Record<string, unknown> = {},
): AppError {
  return new AppError('unprocessable', message, { reason, ...extra })
}

/** A damaged file; `cause` is kept in details for operators, the message stays user-facing. */
export function corrupt(detail: string | null, cause?: unknown): AppError {
  const extra: Record<string, unknown> = {}
  if (cause instanceof Error) extra.cause = cause.message
  if (!detail) return rejection('corrupt', REJECTION_MESSAGES.corrupt, extra)
  const message = `The presentation is damaged or incomplete (${detail}). Open it in PowerPoint, save it again and re-upload.`
  return rejection('corrupt', message, extra)
}
