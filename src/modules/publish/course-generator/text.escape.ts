/**
 * Escaping for everything the generator writes. Input text is never trusted: quick publish text
 * comes from API callers and .pptx text from whoever made the deck.
 */

// C0 controls other than tab/newline/return, U+FFFE/U+FFFF and lone surrogates are not allowed in
// XML 1.0 (the manifest would no longer parse) and mean nothing in HTML.
const INVALID_CHARS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Removes characters that XML 1.0 forbids; `\r\n` and `\r` become `\n`. */
export function cleanText(value: string): string {
  return value.replace(/\r\n?/g, '\n').replace(INVALID_CHARS, '')
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text for an HTML element body or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return cleanText(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)
}

/** Escaped text for an HTML element body, with `\n` as `<br>`. */
export function textHtml(value: string): string {
  return escapeHtml(value).replace(/\n/g, '<br>')
}

/** Text for an XML element body or a quoted attribute value (same five entities). */
export const escapeXml = escapeHtml

/**
 * The URL to put in an `<a href>`, or null when it is not an absolute http(s) URL. Credentials
 * in the URL are refused too: `https://bank.example@evil.example` is a phishing shape.
 */
export function safeLinkUrl(raw: string): string | null {
  const value = cleanText(raw).trim()
  if (!/^https?:\/\//i.test(value)) return null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (url.username || url.password || !url.hostname) return null
  return url.href
}
