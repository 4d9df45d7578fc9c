const PLAYABLE_EXTENSIONS = new Set([
  'mp4',
  'm4v',
  'webm',
  'ogv',
  'ogg',
  'oga',
  'opus',
  'mp3',
  'm4a',
  'aac',
  'wav',
  'flac',
])

const PLAYABLE_TYPES = new Set([
  'video/mp4',
  'video/webm',
  'video/ogg',
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'audio/x-m4a',
  'audio/aac',
  'audio/ogg',
  'audio/webm',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/flac',
])

/**
 * Whether current browsers play the file in `<video>`/`<audio>` without plug-ins. PowerPoint
 * often records a vague content type (`video/unknown` for .mp4), so the extension also counts.
 */
export function isPlayable(partName: string, contentType: string | null): boolean {
  if (contentType && PLAYABLE_TYPES.has(contentType.toLowerCase())) return true
  const dot = partName.lastIndexOf('.')
  return dot !== -1 && PLAYABLE_EXTENSIONS.has(partName.slice(dot + 1).toLowerCase())
}
