import { mkdir, readdir, rm } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'

const PREFIX = 'courseport-run-'

export interface ProcessScratch {
  /** This process's private temp folder (uploads being received, zips being processed…). */
  dir: string
  /** Folders of dead processes removed at start-up. */
  removed: string[]
  /** Removes the folder and everything in it (after a clean drain). */
  dispose(): Promise<void>
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Gives the process a temp folder of its own, `{base}/courseport-run-{host}-{pid}`, and first
 * removes those of processes of this host that are gone: a process killed mid-upload (SIGKILL, OOM,
 * power loss) leaves its half-received files there, and nothing else would ever delete them.
 * Folders of other hosts (a /tmp shared between containers) are never touched. The caller points
 * TMPDIR at `dir`, so every temp file of the process (and of the programs it runs) lands inside.
 */
export async function claimProcessScratch(base: string): Promise<ProcessScratch> {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_')
  const own = `${PREFIX}${host}-${process.pid}`
  const removed: string[] = []
  for (const name of await readdir(base).catch(() => [] as string[])) {
    if (!name.startsWith(`${PREFIX}${host}-`)) continue
    const pid = Number(name.slice(`${PREFIX}${host}-`.length))
    if (!Number.isSafeInteger(pid)) continue
    // Our own pid's folder can only be a leftover of an earlier process that had the same pid.
    if (name !== own && isAlive(pid)) continue
    await rm(join(base, name), { recursive: true, force: true })
    removed.push(name)
  }
  const dir = join(base, own)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  return {
    dir,
    removed,
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}

/**
 * `claimProcessScratch` under the current temp directory, then TMPDIR pointed at the new folder
 * (os.tmpdir() reads it at each call), for `serve` and `worker`.
 */
export async function useProcessScratch(): Promise<ProcessScratch> {
  const { tmpdir } = await import('node:os')
  const scratch = await claimProcessScratch(tmpdir())
  process.env.TMPDIR = scratch.dir
  return scratch
}
