import type { FastifyReply } from 'fastify'
import type { BlobMeta } from '../../infra/blobs/blob-store.ts'
import { DEFAULT_CONTENT_TYPE, lookupMimeType } from '../../infra/blobs/mime-types.ts'
import { PACKAGE_FILE_HEADERS } from '../plugins/security-headers.ts'

/**
 * On every response of `/c/…`, errors included. Chosen so arbitrary SCORM content keeps working
 * while the token in the URL and the API origin stay safe:
 * - `nosniff`: a file is only ever what its extension says, so an uploaded `.txt` or `.jpg`
 *   cannot be run as script or stylesheet. Scripts and styles are mapped to their real types.
 * - `Referrer-Policy: strict-origin-when-cross-origin`: other sites get the content origin
 *   only, never the path that carries the token; same-origin requests (our own server) keep
 *   the full URL. Not `no-referrer`: YouTube and other embedded players refuse to play without
 *   a Referer, and courses embed them a lot. Said explicitly because older browsers default to
 *   `no-referrer-when-downgrade`, which would hand the full URL to any HTTPS site.
 * - `Cross-Origin-Resource-Policy: same-origin`: content is only ever loaded by documents on
 *   the content origin itself (the player page frames it; LMS dispatch wrappers frame the player
 *   page, and CORP does not apply to frames). Other sites, the API/dashboard origin included,
 *   cannot pull package files into their pages with `<img>`/`<script>`, and the bytes stay out
 *   of their processes (Spectre-style reads).
 * No `X-Frame-Options` and no CSP: the player must frame the content, and a CSP would break
 * content that uses inline scripts, `eval` or third-party media — isolation comes from the
 * separate origin instead (DESIGN §2).
 */
export const CONTENT_SECURITY_HEADERS = PACKAGE_FILE_HEADERS

/** Errors (bad token, missing file, 416…) must not be reused from a cache. */
export const ERROR_CACHE_CONTROL = 'no-store'

/**
 * By extension first, so both blob backends agree whatever S3 stored; unknown extensions are
 * `application/octet-stream` (with `nosniff`, browsers do not guess). No `charset` is added:
 * legacy packages are often windows-1252 or declare their encoding in a `<meta>` tag or
 * `@charset`, which an HTTP charset would override; without one, browsers use the BOM, the
 * document's own declaration, then the embedding page's encoding — what the author tested.
 */
export function contentTypeOf(path: string, meta: BlobMeta): string {
  return lookupMimeType(path) ?? meta.contentType ?? DEFAULT_CONTENT_TYPE
}

/**
 * Validators and caching of a file: the version behind a token never changes (a new upload is
 * a new version with a new prefix, hence new URLs), so a browser may keep it for as long as the
 * token in its URL is valid, without revalidating (`immutable`). `private`: the URL is a
 * credential, shared caches must not keep it.
 */
export function setValidatorHeaders(reply: FastifyReply, meta: BlobMeta, maxAge: number): void {
  reply.header('etag', meta.etag)
  reply.header('last-modified', meta.lastModified.toUTCString())
  reply.header('cache-control', `private, max-age=${maxAge}, immutable`)
}
