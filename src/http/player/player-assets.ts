/**
 * The built player files, read once at startup and kept in memory; their gzip and brotli
 * variants are made on first request and kept (brotli at quality 11 takes about half a second
 * of CPU, which start-up — and every test that builds the app — should not pay).
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { PLAYER_FILES } from '../../browser/build.ts'

export interface PlayerAsset {
  readonly contentType: string
  readonly etag: string
  readonly identity: Buffer
  readonly gzip: Buffer
  readonly br: Buffer
}

export interface PlayerAssets {
  /** Changes with the content of player.js and player.css; used as `?v=` on the launch page. */
  readonly version: string
  get(name: string): PlayerAsset | undefined
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
}

export async function loadPlayerAssets(dir: string): Promise<PlayerAssets> {
  const assets = new Map<string, PlayerAsset>()
  for (const name of PLAYER_FILES) {
    const identity = await readFile(join(dir, name))
    const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 22)
    let gzip: Buffer | undefined
    let br: Buffer | undefined
    assets.set(name, {
      contentType: TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
      etag: `"${hash}"`,
      identity,
      get gzip() {
        gzip ??= gzipSync(identity, { level: 9 })
        return gzip
      },
      get br() {
        br ??= brotliCompressSync(identity, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 11,
            [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
          },
        })
        return br
      },
    })
  }
  const version = createHash('sha256')
    .update(assets.get('player.js')?.etag ?? '')
    .update(assets.get('player.css')?.etag ?? '')
    .digest('base64url')
    .slice(0, 12)
  return { version, get: (name) => assets.get(name) }
}

/** Picks the smallest encoding the client accepts (`q=0` refuses one). */
export function chooseEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Set<string>()
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name)
  }
  if (accepted.has('br')) return 'br'
  if (accepted.has('gzip')) return 'gzip'
  return 'identity'
}
