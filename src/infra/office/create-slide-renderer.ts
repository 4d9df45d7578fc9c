import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { createLibreOfficeRenderer, type OfficeTools } from './libreoffice.renderer.ts'
import { privateCacheDir } from './office-profile.ts'
import { runProcessGroup } from './process-group.runner.ts'
import {
  type RenderAvailability,
  RenderError,
  type RenderRequest,
  type SlideRenderer,
} from './slide-renderer.ts'

export interface SlideRendererOptions {
  /** LibreOffice executable (name on the search path, or a path); null: rendering is off. */
  binary: string | null
  /** 'unshare' runs LibreOffice in a network namespace of its own; 'none' does not. */
  sandbox: 'unshare' | 'none'
  timeoutSeconds: number
  /** Renders at once in this process. */
  concurrency: number
  /** Where executables are looked up; also the PATH LibreOffice gets. Default /usr/bin:/bin. */
  searchPath?: string
  /** Private directory for the profile template. Default: `courseport-office-<uid>` in tmpdir. */
  cacheDir?: string
}

async function findExecutable(name: string, searchPath: string): Promise<string | null> {
  const candidates = name.includes('/')
    ? [name]
    : searchPath
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name))
  for (const path of candidates) {
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path
  }
  return null
}

/** The first `unshare` form that works here: plain `-n` needs root, `-rn` a user namespace. */
async function sandboxPrefix(
  unshare: string,
  env: Record<string, string>,
): Promise<string[] | null> {
  const forms = process.getuid?.() === 0 ? [['-n'], ['-rn']] : [['-rn']]
  for (const form of forms) {
    const probe = await runProcessGroup(unshare, [...form, 'true'], { env, timeoutMs: 5000 })
    if (probe.code === 0) return [unshare, ...form]
  }
  return null
}

async function detect(
  options: SlideRendererOptions,
): Promise<{ tools: OfficeTools } | { reason: string }> {
  if (!options.binary) return { reason: 'slide rendering is turned off (OFFICE_BINARY=none)' }
  const searchPath = options.searchPath ?? '/usr/bin:/bin'
  const env = { PATH: searchPath, LANG: 'C.UTF-8' }
  const soffice = await findExecutable(options.binary, searchPath)
  if (!soffice) {
    return { reason: `LibreOffice (${options.binary}) is not installed on the worker` }
  }
  const pdfinfo = await findExecutable('pdfinfo', searchPath)
  const pdftocairo = await findExecutable('pdftocairo', searchPath)
  if (!pdfinfo || !pdftocairo) return { reason: 'poppler-utils is not installed on the worker' }
  const timeout = await findExecutable('timeout', searchPath)
  if (!timeout) return { reason: 'coreutils timeout is not on the search path' }
  let sandbox: string[] = []
  if (options.sandbox === 'unshare') {
    const unshare = await findExecutable('unshare', searchPath)
    const prefix = unshare ? await sandboxPrefix(unshare, env) : null
    if (!prefix) {
      return {
        reason:
          'LibreOffice must run without network, but unshare -n is not permitted on this worker',
      }
    }
    sandbox = prefix
  }
  const version = await runProcessGroup(soffice, ['--version'], { env, timeoutMs: 30_000 })
  const line = version.output.split('\n').find((l) => l.startsWith('LibreOffice'))
  if (version.code !== 0 || !line) {
    return { reason: `${soffice} --version failed; is it LibreOffice?` }
  }
  return { tools: { soffice, pdfinfo, pdftocairo, timeout, sandbox, env, version: line.trim() } }
}

/**
 * The slide renderer chosen from configuration: LibreOffice when it, poppler-utils and the
 * network sandbox are usable on this machine, otherwise one that reports why not (conversions
 * then complete from the OOXML text alone). Detection runs once, on first use.
 */
export function createSlideRenderer(options: SlideRendererOptions): SlideRenderer {
  let state: Promise<{ renderer: SlideRenderer; availability: RenderAvailability }> | undefined
  const resolve = () => {
    state ??= detect(options).then(async (found) => {
      if ('reason' in found) {
        return {
          renderer: unavailableRenderer(found.reason),
          availability: { available: false, reason: found.reason } as const,
        }
      }
      const uid = process.getuid?.() ?? 'user'
      const cacheDir = await privateCacheDir(
        options.cacheDir ?? join(tmpdir(), `courseport-office-${uid}`),
      )
      // Font caches survive from job to job instead of being rebuilt in each job's HOME.
      const env = { ...found.tools.env, XDG_CACHE_HOME: join(cacheDir, 'cache') }
      const renderer = createLibreOfficeRenderer(
        { ...found.tools, env },
        {
          timeoutMs: options.timeoutSeconds * 1000,
          concurrency: options.concurrency,
          cacheDir,
          rasterParallel: Math.min(4, availableParallelism()),
        },
      )
      return { renderer, availability: { available: true, version: found.tools.version } as const }
    })
    return state
  }
  return {
    availability: async () => (await resolve()).availability,
    render: async (request: RenderRequest) => (await resolve()).renderer.render(request),
  }
}

function unavailableRenderer(reason: string): SlideRenderer {
  return {
    availability: async () => ({ available: false, reason }),
    render: async () => {
      throw new RenderError('unavailable', reason)
    },
  }
}
