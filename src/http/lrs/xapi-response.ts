/** What an /xapi handler answers; the route writes it (JSON bodies are serialised there). */
export interface XapiResponse {
  status: number
  headers?: Record<string, string>
  /** A Buffer or string is sent as is; anything else as JSON. */
  body?: unknown
}

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): XapiResponse {
  return {
    status,
    body,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  }
}

export function noContent(headers: Record<string, string> = {}): XapiResponse {
  return { status: 204, headers }
}

export function httpDate(iso: string): string {
  return new Date(iso).toUTCString()
}
