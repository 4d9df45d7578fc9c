import { extname } from 'node:path'

/**
 * Content types for what course packages contain. No `charset` is added: legacy SCOs are often
 * windows-1252 or declare their encoding in a `<meta>` tag, which an HTTP charset would override.
 */
export const MIME_TYPES: Readonly<Record<string, string>> = Object.freeze({
  // documents and code
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'application/xhtml+xml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  css: 'text/css',
  json: 'application/json',
  map: 'application/json',
  xml: 'application/xml',
  xsd: 'application/xml',
  dtd: 'application/xml-dtd',
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  vtt: 'text/vtt',
  srt: 'application/x-subrip',
  pdf: 'application/pdf',
  wasm: 'application/wasm',
  // images
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  // audio and video
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  ogv: 'video/ogg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  flac: 'audio/flac',
  mov: 'video/quicktime',
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  // fonts
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  // legacy and archives
  swf: 'application/x-shockwave-flash',
  zip: 'application/zip',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
})

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream'

/** The type for a key or file name by its extension (case-insensitive); undefined if unknown. */
export function lookupMimeType(name: string): string | undefined {
  const ext = extname(name).slice(1).toLowerCase()
  // Own keys only: `file.constructor` must not find Object.prototype.constructor.
  return Object.hasOwn(MIME_TYPES, ext) ? MIME_TYPES[ext] : undefined
}

/** Like `lookupMimeType`, falling back to `application/octet-stream`. */
export function contentTypeFor(name: string): string {
  return lookupMimeType(name) ?? DEFAULT_CONTENT_TYPE
}
