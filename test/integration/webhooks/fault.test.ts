import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { newId } from '../../../src/shared/ids.ts'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  createWebhookTestApp,
  type RoutedReceiver,
  SECRET,
  startRoutedReceiver,
  type WebhookTestApp,
  waitFor,
} from './webhook-test-app.ts'

const NODE = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url))
const CHILD = fileURLToPath(new URL('./webhook-worker.child.ts', import.meta.url))

async function spawnWorker(url: string, dataDir: string, options: object): Promise<ChildProcess> {
  const child = spawn(NODE, [CHILD, url, dataDir, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`worker child exited early (${code})`)))
    child.stdout?.once('data', () => resolve())
  })
  child.removeAllListeners('exit')
  return child
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  await exited(child)
}

describeEachDatabase(
  'webhook delivery survives crashes and shares work between workers',
  (database) => {
    let t: WebhookTestApp
    let r: RoutedReceiver
    let tenant: { tenantId: string; testKey: string; liveKey: string }
    let dataDir = ''
    const children: ChildProcess[] = []
    /** Receiver hits per delivery_id, over every path. */
    const seen = new Map<string, number>()

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'cp-webhook-fault-'))
      r = await startRoutedReceiver()
      t = await createWebhookTestApp(database())
      tenant = await t.createTenant()
    })
    after(async () => {
      for (const child of children) await stop(child)
      await t.close()
      await r.close()
      rmSync(dataDir, { recursive: true, force: true })
    })

    function count(path: string, delayMs: number) {
      r.route(path, (req, res) => {
        const id = String(req.headers['x-delivery-id'])
        seen.set(id, (seen.get(id) ?? 0) + 1)
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end('{"ok":true}')
        }, delayMs)
      })
    }

    async function registerEndpoints(prefix: string, n: number, delayMs: number) {
      const ids: string[] = []
      for (let i = 0; i < n; i++) {
        count(`/${prefix}-${i}`, delayMs)
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: bearer(tenant.testKey),
          payload: { url: r.url(`/${prefix}-${i}`), secret: SECRET, eventScope: 'packages' },
        })
        assert.equal(res.statusCode, 201, res.body)
        ids.push(res.json().webhook.id)
      }
      return ids
    }

    /** `n` package.archived audit events, inserted in bulk as producers would record them. */
    async function emitEvents(n: number) {
      const occurredAt = new Date(Date.now() + 1000).toISOString()
      const rows = Array.from({ length: n }, (_, i) => ({
        id: newId('evt'),
        tenant_id: tenant.tenantId,
        mode: 'test' as const,
        type: 'package.archived',
        entity_type: 'package',
        entity_id: `pkg_${i}`,
        severity: 'info' as const,
        data: JSON.stringify({ package_id: `pkg_${i}` }),
        occurred_at: occurredAt,
        fanned_out_at: null,
      }))
      for (let i = 0; i < rows.length; i += 500) {
        await t.ctx.db.kysely
          .insertInto('audit_events')
          .values(rows.slice(i, i + 500))
          .execute()
      }
      return rows.map((r) => r.id)
    }

    async function statusCounts(endpoints: readonly string[]) {
      const rows = await t.ctx.db.kysely
        .selectFrom('webhook_deliveries')
        .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('endpoint_id', 'in', endpoints)
        .groupBy('status')
        .execute()
      return Object.fromEntries(rows.map((x) => [x.status, Number(x.n)])) as Record<string, number>
    }

    test('SIGKILL during delivery: on restart every delivery ends delivered, at most twice', async () => {
      const endpoints = await registerEndpoints('kill', 4, 150)
      const events = await emitEvents(100)
      const expected = endpoints.length * events.length
      const childOptions = { timeoutMs: 2000, leaseMarginSeconds: 2 }
      const first = await spawnWorker(database().url, dataDir, childOptions)
      children.push(first)
      await waitFor('the first worker to be mid-delivery', () => seen.size >= 40, 60_000)
      first.kill('SIGKILL')
      await exited(first)
      assert.equal(first.signalCode, 'SIGKILL')
      const atKill = await statusCounts(endpoints)
      assert.ok((atKill.delivered ?? 0) < expected, 'killed before finishing')

      const second = await spawnWorker(database().url, dataDir, childOptions)
      children.push(second)
      await waitFor(
        'every delivery to be delivered',
        async () => (await statusCounts(endpoints)).delivered === expected,
        120_000,
        250,
      )
      await stop(second)

      const rows = await t.ctx.db.kysely
        .selectFrom('webhook_deliveries')
        .select(['id', 'event_id', 'endpoint_id', 'total_attempts'])
        .where('endpoint_id', 'in', endpoints)
        .execute()
      assert.equal(rows.length, expected, 'one delivery per (event, endpoint)')
      let twice = 0
      for (const row of rows) {
        const hits = seen.get(row.id) ?? 0
        assert.ok(hits >= 1 && hits <= 2, `${row.id} received ${hits} times`)
        if (hits === 2) twice++
      }
      // Only requests in flight when the worker died can arrive twice: ≤ 2 per endpoint.
      assert.ok(twice <= endpoints.length * 2, `${twice} duplicates`)
      const interrupted = await t.ctx.db.kysely
        .selectFrom('webhook_delivery_attempts')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('outcome', '=', 'interrupted')
        .executeTakeFirstOrThrow()
      assert.ok(Number(interrupted.n) >= twice, 'the lost attempts are in the history')
      console.log(
        `# SIGKILL: ${expected} deliveries, ${atKill.delivered ?? 0} done at the kill, ${twice} received twice`,
      )
    })

    test('2 000 events to 20 endpoints with 2 worker processes: every pair delivered', async () => {
      const endpoints = await registerEndpoints('many', 20, 0)
      const events = await emitEvents(2000)
      const expected = endpoints.length * events.length
      const started = Date.now()
      const options = { timeoutMs: 30_000, leaseMarginSeconds: 30 }
      const workers = await Promise.all([
        spawnWorker(database().url, dataDir, options),
        spawnWorker(database().url, dataDir, options),
      ])
      children.push(...workers)
      await waitFor(
        `${expected} deliveries`,
        async () => (await statusCounts(endpoints)).delivered === expected,
        300_000,
        500,
      )
      const seconds = (Date.now() - started) / 1000
      await Promise.all(workers.map(stop))

      const { rows } = await sql<{ pairs: number | string; ids: number | string }>`
      select count(distinct event_id || ':' || endpoint_id) as pairs, count(*) as ids
      from webhook_deliveries where endpoint_id in (${sql.join(endpoints)})`.execute(
        t.ctx.db.kysely,
      )
      assert.equal(Number(rows[0]?.pairs), expected)
      assert.equal(Number(rows[0]?.ids), expected)
      const ids = await t.ctx.db.kysely
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', 'in', endpoints)
        .execute()
      const missing = ids.filter((d) => !seen.has(d.id))
      assert.deepEqual(missing, [], 'the receiver got every delivery')
      const duplicates = ids.filter((d) => (seen.get(d.id) ?? 0) > 1).length
      console.log(
        `# 2 workers: ${expected} deliveries in ${seconds.toFixed(1)} s ` +
          `(${Math.round(expected / seconds)}/s incl. fan-out), ${duplicates} duplicates`,
      )
    })
  },
)
