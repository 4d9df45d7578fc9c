import { existsSync } from 'node:fs'
import { open, rename, rm, stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { backup, DatabaseSync } from 'node:sqlite'
import { UsageError } from './usage-error.ts'

/** Pages copied per step (4 MiB at SQLite's default 4 KiB page): progress without overhead. */
const PAGES_PER_STEP = 1024

export interface BackupResult {
  file: string
  pages: number
  bytes: number
  seconds: number
}

/** The file of a `sqlite:PATH` URL, read exactly as `openDatabase` reads it. */
function sqlitePath(databaseUrl: string): string | null {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return null
  return databaseUrl.replace(/^sqlite:(\/\/)?/, '')
}

/**
 * Copies the database as of one instant into `tmp`. The source connection opens a read
 * transaction first and holds it to the end, so every step reads the same WAL snapshot: writers
 * in other processes go on (WAL), and SQLite never restarts the copy because of them (without
 * the snapshot, each commit elsewhere sends it back to page one, and a busy server can keep it
 * there for ever). The checkpointer cannot recycle the WAL meanwhile, so it grows until the end.
 */
async function copySnapshot(path: string, tmp: string): Promise<number> {
  const source = new DatabaseSync(path)
  try {
    source.exec('PRAGMA busy_timeout = 10000')
    source.exec('BEGIN')
    source.prepare('SELECT count(*) FROM sqlite_schema').get() // takes the snapshot now
    const pages = await backup(source, tmp, { rate: PAGES_PER_STEP })
    source.exec('COMMIT')
    return pages
  } finally {
    source.close()
  }
}

/**
 * Checks the copy (`PRAGMA quick_check`) and makes it one self-contained file (rollback journal
 * mode: no -wal beside it; `courseport serve` switches a restored file back to WAL).
 */
function verifyCopy(tmp: string): void {
  const copy = new DatabaseSync(tmp)
  try {
    const rows = copy.prepare('PRAGMA quick_check').all() as Array<{ quick_check: string }>
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok')
    if (problems.length > 0) throw new Error(`the copy failed quick_check: ${problems.join('; ')}`)
    copy.exec('PRAGMA journal_mode = DELETE')
  } finally {
    copy.close()
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * `courseport backup FILE`: an online copy of the SQLite database, safe while servers and
 * workers write (docs/operations.md, "Backup and restore"). The copy holds every transaction
 * committed before it started, passes `quick_check`, and replaces FILE only once complete (it is
 * written beside FILE and renamed), so an interrupted backup never leaves a torn file at FILE.
 * PostgreSQL is backed up with its own tools: this says so and returns exit code 1.
 */
export async function backupCommand(
  target: string | undefined,
  databaseUrl: string,
  options: { json: boolean },
): Promise<void> {
  if (!target) throw new UsageError('backup needs FILE')
  const path = sqlitePath(databaseUrl)
  if (path === null) {
    process.stderr.write(
      'courseport backup copies SQLite databases only. For PostgreSQL use its tools: ' +
        'pg_dump -Fc (restore with pg_restore), or base backups with WAL archiving / your ' +
        "provider's point-in-time recovery (docs/operations.md, Backup and restore).\n",
    )
    process.exitCode = 1
    return
  }
  if (path === ':memory:' || !existsSync(path)) {
    process.stderr.write(`no SQLite database at ${path} (DATABASE_URL, DATA_DIR)\n`)
    process.exitCode = 1
    return
  }
  const file = resolve(target)
  if (file === resolve(path)) throw new UsageError('backup FILE must not be the database itself')
  const tmp = `${file}.partial-${process.pid}`
  const started = performance.now()
  try {
    const pages = await copySnapshot(path, tmp)
    verifyCopy(tmp)
    await fsyncPath(tmp)
    await rename(tmp, file)
    await fsyncPath(dirname(file))
    const result: BackupResult = {
      file,
      pages,
      bytes: (await stat(file)).size,
      seconds: Math.round(performance.now() - started) / 1000,
    }
    process.stdout.write(
      options.json
        ? `${JSON.stringify(result)}\n`
        : `backed up ${path} to ${file}: ${result.pages} pages, ${result.bytes} bytes in ${result.seconds} s; quick_check ok\n`,
    )
  } catch (err) {
    await Promise.all(
      ['', '-wal', '-shm', '-journal'].map((s) => rm(`${tmp}${s}`, { force: true })),
    )
    throw err
  }
}
