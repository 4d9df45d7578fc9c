import { readdir, readFile, readlink } from 'node:fs/promises'

/** Socket inodes of TCP connections whose local port is `port` (Linux /proc/net/tcp{,6}). */
async function inodesOfLocalPort(port: number): Promise<Set<string>> {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      const cells = line.trim().split(/\s+/)
      const local = cells[1]?.split(':')[1]
      if (local && Number.parseInt(local, 16) === port && cells[9] && cells[9] !== '0') {
        inodes.add(cells[9])
      }
    }
  }
  return inodes
}

/**
 * Which of `pids` holds the client end of a loopback connection, given the port the server saw
 * as the remote port; undefined when none does (or this is not Linux). Lets a test kill the
 * process that has a request in flight, instead of hoping one does.
 */
export async function processOwningPort(
  port: number,
  pids: readonly number[],
): Promise<number | undefined> {
  const inodes = await inodesOfLocalPort(port)
  if (inodes.size === 0) return undefined
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode && inodes.has(inode)) return pid
    }
  }
  return undefined
}
