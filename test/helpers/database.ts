import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe } from 'node:test'
import pg from 'pg'
import { type Db, migrateToLatest, openDatabase } from '../../src/infra/db/database.ts'
import type { Dialect } from '../../src/infra/db/schema.ts'
import { randomBase62 } from '../../src/shared/ids.ts'

const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test'

export interface DatabaseTarget {
  dialect: Dialect
  /** Set when the target cannot run here; the suite is skipped with this reason. */
  skip?: string
}

async function postgresAnswersOnce(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  try {
    await client.connect()
    await client.query('select 1')
    return undefined
  } catch (err) {
    return `PostgreSQL at ${url.replace(/\/\/[^@]*@/, '//')} does not answer (${(err as Error).message})`
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * Whether PostgreSQL answers, asked up to three times: on a busy machine (every test file asks
 * at load, two at a time beside running suites) one connection can take longer than its timeout,
 * and under CI=true a wrong "absent" fails the whole file.
 */
async function postgresAnswers(url: string): Promise<string | undefined> {
  let problem: string | undefined
  for (let attempt = 0; attempt < 3; attempt++) {
    problem = await postgresAnswersOnce(url)
    if (problem === undefined || /ECONNREFUSED|ENOTFOUND|password|does not exist/.test(problem)) {
      return problem
    }
  }
  return problem
}

export const POSTGRES_ADMIN_URL = process.env.TEST_DATABASE_URL ?? DEFAULT_PG_URL

async function detectTargets(): Promise<DatabaseTarget[]> {
  const pgProblem = await postgresAnswers(POSTGRES_ADMIN_URL)
  if (pgProblem && process.env.CI === 'true') {
    throw new Error(`CI=true requires PostgreSQL: ${pgProblem}`)
  }
  if (pgProblem) console.log(`# skipping PostgreSQL suites: ${pgProblem}`)
  return [{ dialect: 'sqlite' }, { dialect: 'postgres', skip: pgProblem }]
}

/** Which databases this run covers: SQLite always, PostgreSQL when it answers (or CI=true). */
export const DATABASE_TARGETS: DatabaseTarget[] = await detectTargets()

export interface TestDatabase {
  db: Db
  url: string
  dialect: Dialect
  dispose(): Promise<void>
}

/** A fresh, migrated, empty database of the given dialect; `dispose` removes it. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cp-db-'))
    const url = `sqlite:${join(dir, 'test.db')}`
    const db = openDatabase(url)
    await migrateToLatest(db)
    return {
      db,
      url,
      dialect,
      async dispose() {
        await db.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const name = `cp_test_${randomBase62(12).toLowerCase()}`
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  const db = openDatabase(url.toString())
  await migrateToLatest(db)
  return {
    db,
    url: url.toString(),
    dialect,
    async dispose() {
      await db.close()
      const cleanup = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
      await cleanup.connect()
      await cleanup.query(`drop database if exists ${name} with (force)`)
      await cleanup.end()
    },
  }
}

/**
 * Declares the suite once per database target, each on its own fresh database for the whole
 * suite. `body` receives a getter because the database exists only once `before` has run.
 */
export function describeEachDatabase(
  name: string,
  body: (database: () => TestDatabase) => void,
): void {
  for (const target of DATABASE_TARGETS) {
    describe(`${name} [${target.dialect}]`, { skip: target.skip }, () => {
      let current: TestDatabase | undefined
      before(async () => {
        current = await createTestDatabase(target.dialect)
      })
      after(async () => {
        await current?.dispose()
      })
      body(() => {
        if (!current) throw new Error('database not ready: use it inside a test or hook')
        return current
      })
    })
  }
}
