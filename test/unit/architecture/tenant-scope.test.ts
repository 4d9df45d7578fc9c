import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'

/*
 * The tenant-scope rule (DESIGN §5; issue 17.3), checked on the source text:
 *
 * 1. Every exported function of a `*.repository.ts` file takes `(db: Executor, scope:
 *    TenantScope, …)` and uses its scope. Functions that deliberately work across tenants live
 *    in `*.cross-tenant.repository.ts` files, each with a doc comment saying why.
 * 2. Outside repository files, nothing under src/modules, src/http or src/jobs reads or writes a
 *    tenant table (one with a `tenant_id` column) with selectFrom/insertInto/updateTable/
 *    deleteFrom.
 *
 * TypeScript 7's compiler has no in-process API, so this is a small scanner over exported
 * function signatures (balanced brackets, top-level commas), not a regex over whole lines.
 */

const root = join(import.meta.dirname, '../../..')
const src = join(root, 'src')

/**
 * Files allowed to break the rule for a while (none today): an entry names the file and, in this
 * comment, why. The last test fails on an entry whose file already keeps the rule.
 */
const pendingFiles = new Set<string>([])

/** Repository files allowed to re-export a cross-tenant function for a while (none today). */
const pendingReexports = new Set<string>([])

function filesUnder(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...filesUnder(path))
    else if (entry.name.endsWith('.ts')) found.push(path)
  }
  return found
}

const rel = (path: string): string => relative(root, path).split('\\').join('/')

/** The index just past the bracket that closes the one at `open`. */
function closing(text: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '<': '>', '{': '}', '[': ']' }
  const stack: string[] = []
  for (let i = open; i < text.length; i++) {
    const ch = text[i] as string
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = text.indexOf(ch, i + 1)
      i = end < 0 ? text.length : end
      continue
    }
    if (ch === '=' && text[i + 1] === '>') {
      i++
      continue
    }
    if (pairs[ch]) stack.push(pairs[ch] as string)
    else if (ch === stack.at(-1)) {
      stack.pop()
      if (stack.length === 0) return i + 1
    }
  }
  return text.length
}

/**
 * Where a function's body opens, from just past its parameter list: the first `{` outside the
 * return type (a type literal follows `:`, `|`, `&`, `<` or `,`, or sits inside `<…>`).
 */
function bodyStart(text: string, from: number): number {
  let depth = 0
  let previous = ')'
  for (let i = from; i < text.length; i++) {
    const ch = text[i] as string
    if (ch === '=' && text[i + 1] === '>') {
      if (depth === 0) return -1
      i++
      previous = '>'
      continue
    }
    if (ch === '<' || ch === '(' || ch === '[') depth++
    else if (ch === '>' || ch === ')' || ch === ']') depth--
    else if (ch === '{') {
      if (depth === 0 && !':|&,<'.includes(previous)) return i
      i = closing(text, i) - 1
    }
    if (!/\s/.test(ch)) previous = ch
  }
  return -1
}

/** Splits a parameter list at its top-level commas. */
function splitParams(list: string): string[] {
  const params: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < list.length; i++) {
    const ch = list[i] as string
    if ('([{<'.includes(ch)) depth++
    else if (')]}>'.includes(ch) && !(ch === '>' && list[i - 1] === '=')) depth--
    else if (ch === ',' && depth === 0) {
      params.push(list.slice(start, i).trim())
      start = i + 1
    }
  }
  const last = list.slice(start).trim()
  if (last) params.push(last)
  return params
}

interface ExportedFunction {
  name: string
  params: string[]
  body: string
  documented: boolean
}

/** Exported functions (`export [async] function` and `export const x = [async] (…) =>`). */
function exportedFunctions(text: string): ExportedFunction[] {
  const found: ExportedFunction[] = []
  const pattern =
    /export\s+(?:async\s+)?function\s*\*?\s*(\w+)\s*(<)?|export\s+const\s+(\w+)\s*(?::[^=]+)?=\s*(?:async\s*)?(?=[(<])/g
  for (const match of text.matchAll(pattern)) {
    const name = (match[1] ?? match[3]) as string
    let at = (match.index ?? 0) + match[0].length
    if (match[2] === '<') at = closing(text, at - 1)
    else if (text[at] === '<') at = closing(text, at)
    const open = text.indexOf('(', at)
    const close = closing(text, open)
    const bodyOpen = bodyStart(text, close)
    const body = bodyOpen < 0 ? '' : text.slice(bodyOpen, closing(text, bodyOpen))
    const before = text.slice(0, match.index).trimEnd()
    found.push({
      name,
      params: splitParams(text.slice(open + 1, close - 1)),
      body,
      documented: before.endsWith('*/'),
    })
  }
  return found
}

/** `foo: Type` → [foo, Type] (default values and optional marks removed). */
function paramParts(param: string): [string, string] {
  const colon = param.indexOf(':')
  if (colon < 0) return [param.trim(), '']
  return [
    param.slice(0, colon).replace('?', '').trim(),
    param
      .slice(colon + 1)
      .replace(/=(?!>).*$/s, '')
      .trim(),
  ]
}

/** Tables with a `tenant_id` column, read from the Kysely table types. */
function tenantTables(): Set<string> {
  const dbDir = join(src, 'infra/db')
  const files = [join(dbDir, 'schema.ts'), ...filesUnder(join(dbDir, 'tables'))]
  const text = files.map((f) => readFileSync(f, 'utf8')).join('\n')
  const withTenant = new Set<string>()
  for (const match of text.matchAll(/export interface (\w+)\s*\{([^}]*)\}/g)) {
    if (/^\s*tenant_id\??:/m.test(match[2] as string)) withTenant.add(match[1] as string)
  }
  const tables = new Set<string>()
  for (const match of text.matchAll(/^\s+(\w+): (\w+)$/gm)) {
    if (withTenant.has(match[2] as string)) tables.add(match[1] as string)
  }
  return tables
}

const allFiles = filesUnder(src)
const repositoryFiles = allFiles.filter(
  (f) => f.endsWith('.repository.ts') && !rel(f).startsWith('src/infra/'),
)

test('the scanner finds the tenant tables and the repository functions', () => {
  const tables = tenantTables()
  for (const table of ['packages', 'api_keys', 'sessions', 'webhook_deliveries', 'audit_events']) {
    assert.ok(tables.has(table), `${table} is a tenant table`)
  }
  assert.ok(!tables.has('jobs'), 'jobs carries no tenant_id')
  const sample = exportedFunctions(
    'export async function a<T extends { x: number }>(db: Executor, scope: TenantScope, f: (x: number) => void): Promise<T> { return scope }\n' +
      'export const b = async (db: Executor, id: string) => { return id }',
  )
  assert.deepEqual(
    sample.map((f) => [f.name, f.params.map((p) => paramParts(p)[1])]),
    [
      ['a', ['Executor', 'TenantScope', '(x: number) => void']],
      ['b', ['Executor', 'string']],
    ],
  )
})

test('every exported repository function takes (db, scope: TenantScope, …) and uses it', () => {
  const problems: string[] = []
  for (const file of repositoryFiles) {
    const path = rel(file)
    if (pendingFiles.has(path)) continue
    const text = readFileSync(file, 'utf8')
    const crossTenant = path.endsWith('.cross-tenant.repository.ts')
    for (const fn of exportedFunctions(text)) {
      if (crossTenant) {
        if (!fn.documented) problems.push(`${path}: ${fn.name} has no doc comment saying why`)
        continue
      }
      const [scopeName, scopeType] = paramParts(fn.params[1] ?? '')
      if (scopeType !== 'TenantScope') {
        problems.push(`${path}: ${fn.name} does not take (db, scope: TenantScope, …)`)
      } else if (!new RegExp(`\\b${scopeName}\\b`).test(fn.body)) {
        problems.push(`${path}: ${fn.name} never uses its scope`)
      }
    }
    if (!crossTenant && /export\s+const\s+\w+\s*(?::[^=]+)?=\s*\{/.test(text)) {
      problems.push(`${path}: exports an object; put cross-tenant queries in a cross-tenant file`)
    }
    const reexport = /export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s+from\s+'[^']*cross-tenant[^']*'/
    if (!crossTenant && !pendingReexports.has(path) && reexport.test(text)) {
      problems.push(`${path}: re-exports cross-tenant functions as if they were scoped`)
    }
  }
  assert.deepEqual(problems, [])
})

test('outside repositories, no code under src/modules, src/http, src/jobs queries a tenant table', () => {
  const tables = tenantTables()
  const problems: string[] = []
  for (const file of allFiles) {
    const path = rel(file)
    if (!/^src\/(modules|http|jobs)\//.test(path)) continue
    if (path.endsWith('.repository.ts') || path.includes('/migrations/')) continue
    if (pendingFiles.has(path)) continue
    const text = readFileSync(file, 'utf8')
    const calls = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(\s*['"`](\w+)/g
    for (const match of text.matchAll(calls)) {
      if (tables.has(match[2] as string)) {
        const line = text.slice(0, match.index).split('\n').length
        problems.push(`${path}:${line}: ${match[1]}('${match[2]}') outside a repository`)
      }
    }
  }
  assert.deepEqual(problems, [])
})

test('the temporary allowlists name only files that still break the rule', () => {
  const stale: string[] = []
  const tables = tenantTables()
  for (const path of pendingFiles) {
    let text: string
    try {
      text = readFileSync(join(root, path), 'utf8')
    } catch {
      stale.push(`${path} (no such file)`)
      continue
    }
    const unscoped = path.endsWith('.repository.ts')
      ? exportedFunctions(text).some((fn) => paramParts(fn.params[1] ?? '')[1] !== 'TenantScope')
      : [...text.matchAll(/\.(selectFrom|insertInto|updateTable|deleteFrom)\(\s*['"`](\w+)/g)].some(
          (m) => tables.has(m[2] as string),
        )
    if (!unscoped) stale.push(path)
  }
  for (const path of pendingReexports) {
    const text = readFileSync(join(root, path), 'utf8')
    if (!/export\s+\{[^}]*\}\s+from\s+'[^']*cross-tenant/.test(text)) stale.push(path)
  }
  assert.deepEqual(stale, [], 'these files now keep the rule: remove them from the allowlist')
})
