import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { HttpEgressClient } from '../../infra/http-egress/index.ts'
import { isHttpEgressError } from '../../infra/http-egress/index.ts'
import { AppError } from '../../shared/app-error.ts'

/** Types a slide image may have; told by the bytes, never by the server's header alone. */
const ACCEPTED = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'] as const
type ImageType = (typeof ACCEPTED)[number]

/** Total time for one image: connect, headers and body. */
const FETCH_TIMEOUT_MS = 15_000
/** Images fetched at once for one request. */
const PARALLEL = 4

export interface FetchedImage {
  path: string
  contentType: ImageType
  fileName: string
}

/** The image type the first bytes announce, or null. */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16))
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png'
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg'
  const ascii = b.toString('latin1')
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif'
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp'
  if (/^ftyp(avif|avis)$/.test(ascii.slice(4, 12))) return 'image/avif'
  return null
}

function fileNameOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'image'
  } catch {
    return 'image'
  }
}

function refused(slide: number, url: string, reason: string, code: string): AppError {
  return new AppError(
    'unprocessable',
    `Slide ${slide}: the image at ${url} could not be used: ${reason}`,
    { slide, image_url: url, reason: code },
  )
}

/**
 * Fetches every slide's `image_url` through the SSRF-safe egress client (https only, private
 * and metadata addresses refused, no redirects, size and time limits) into `dir`, so the course
 * carries its images and needs no network at play time. Each URL is fetched once however many
 * slides use it. The first failure fails the whole request, naming the slide and the URL.
 */
export async function fetchSlideImages(
  egress: HttpEgressClient,
  urls: ReadonlyArray<string | undefined>,
  dir: string,
  maxBytes: number,
): Promise<Array<FetchedImage | null>> {
  const byUrl = new Map<string, { slide: number; result?: Promise<FetchedImage> }>()
  urls.forEach((url, i) => {
    if (url && !byUrl.has(url)) byUrl.set(url, { slide: i + 1 })
  })
  const queue = [...byUrl.entries()]
  let n = 0
  const fetchOne = async (url: string, slide: number, index: number): Promise<FetchedImage> => {
    let body: Buffer
    try {
      const res = await egress.request({
        url,
        headers: { accept: ACCEPTED.join(', ') },
        acceptContentTypes: ['image/*'],
        maxBodyBytes: maxBytes,
        timeoutMs: FETCH_TIMEOUT_MS,
      })
      if (res.status < 200 || res.status > 299) {
        const why = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''
        throw refused(slide, url, `the server answered HTTP ${res.status}${why}.`, 'http_status')
      }
      body = res.body
    } catch (err) {
      if (!isHttpEgressError(err)) throw err
      const reason =
        err.code === 'too_large'
          ? `it is larger than ${Math.floor(maxBytes / 1024)} KiB.`
          : `${err.message}.`
      throw refused(slide, url, reason, err.code)
    }
    const contentType = sniffImageType(body)
    if (!contentType) {
      throw refused(slide, url, 'it is not a PNG, JPEG, GIF, WebP or AVIF image.', 'not_an_image')
    }
    const path = join(dir, `image-${index}`)
    await writeFile(path, body)
    return { path, contentType, fileName: fileNameOf(url) }
  }
  let failed = false
  const worker = async () => {
    for (let entry = queue.shift(); entry && !failed; entry = queue.shift()) {
      const [url, state] = entry
      state.result = fetchOne(url, state.slide, n++)
      await state.result.catch((err: unknown) => {
        failed = true // the request fails: stop fetching the rest
        throw err
      })
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker))
  return Promise.all(urls.map((url) => (url ? (byUrl.get(url)?.result ?? null) : null)))
}
