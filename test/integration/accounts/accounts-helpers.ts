import assert from 'node:assert/strict'
import type { Mode } from '../../../src/infra/db/schema.ts'
import type { DashboardRole } from '../../../src/infra/db/tables/accounts.ts'
import type { SessionsTable } from '../../../src/infra/db/tables/sessions.ts'
import { AccountService } from '../../../src/modules/accounts/account.service.ts'
import { recordSessionResult } from '../../../src/modules/reports/progress-rollup.repository.ts'
import type { TestApp } from '../../helpers/app.ts'

export const PASSWORD = 'correct horse battery'

export interface Signed {
  cookie: string
  csrf: string
  email: string
  userId: string
}

/** The `cp_session=…` pair from a response's Set-Cookie. */
export function sessionCookie(setCookie: string | string[] | undefined): string {
  const all = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []
  const line = all.find((c) => c.startsWith('cp_session='))
  assert.ok(line, `no session cookie in ${JSON.stringify(all)}`)
  return line.split(';')[0] as string
}

/** A user created as the CLI does (an invite link) and accepted over HTTP: signed in. */
export async function createUser(
  t: Pick<TestApp, 'app' | 'ctx'>,
  tenantId: string,
  email: string,
  role: DashboardRole = 'owner',
): Promise<Signed> {
  const accounts = new AccountService({ db: t.ctx.db.kysely, clock: t.ctx.clock })
  const invite = await accounts.createInvite(tenantId, { email, role }, null)
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/customer/invites/${invite.token}/accept`,
    payload: { password: PASSWORD },
  })
  assert.equal(res.statusCode, 200, res.body)
  const me = res.json()
  return {
    cookie: sessionCookie(res.headers['set-cookie']),
    csrf: me.csrf_token,
    email,
    userId: me.user.id,
  }
}

export async function insertPackage(
  t: Pick<TestApp, 'ctx'>,
  tenantId: string,
  mode: Mode,
  id: string,
) {
  const now = '2026-03-01T00:00:00.000Z'
  await t.ctx.db.kysely
    .insertInto('packages')
    .values({
      id,
      tenant_id: tenantId,
      mode,
      title: `Course ${id}`,
      description: null,
      status: 'active',
      content_type: 'scorm',
      scorm_version: '1.2',
      active_version_id: null,
      latest_version_number: 1,
      created_at: now,
      updated_at: now,
      archived_at: null,
      runtime_options: '{}',
    })
    .execute()
  await t.ctx.db.kysely
    .insertInto('package_versions')
    .values({
      id: `pv_${id}`,
      package_id: id,
      tenant_id: tenantId,
      mode,
      version_number: 1,
      content_type: 'scorm',
      scorm_version: '1.2',
      edition: '1.2',
      title: `Course ${id}`,
      manifest: '{}',
      file_count: 1,
      total_bytes: 1,
      blob_prefix: 'x',
      zip_blob_key: 'x',
      original_filename: 'x.zip',
      uploaded_by: null,
      created_at: now,
      activated_at: now,
    })
    .execute()
}

let sessionCounter = 0

/** One attempt row as the runtime leaves it. */
export async function insertSession(
  t: TestApp,
  row: {
    tenantId: string
    mode: Mode
    packageId: string
    learner: string
    createdAt: string
    completed?: boolean
    success?: 'passed' | 'failed' | 'unknown'
    score?: number | null
    seconds: number
    dispatchId?: string | null
  },
): Promise<SessionsTable> {
  sessionCounter += 1
  const session: SessionsTable = {
    id: `ses_report${String(sessionCounter).padStart(6, '0')}`,
    tenant_id: row.tenantId,
    mode: row.mode,
    package_id: row.packageId,
    version_id: `pv_${row.packageId}`,
    learner_id: row.learner,
    learner_name: row.learner,
    dispatch_id: row.dispatchId ?? null,
    attempt_number: 1,
    open: 0,
    scorm_version: '1.2',
    completion_status: row.completed ? 'completed' : 'incomplete',
    success_status: row.success ?? 'unknown',
    score_scaled: row.score ?? null,
    score_raw: null,
    score_min: null,
    score_max: null,
    progress_percent: null,
    session_time: null,
    time_spent_seconds: row.seconds,
    suspended: 0,
    current_item_id: null,
    launch_count: 1,
    created_at: row.createdAt,
    updated_at: row.createdAt,
    last_launched_at: row.createdAt,
    completed_at: null,
    completed_event_at: null,
    failed_event_at: null,
  }
  // As the launch and the runtime do: the row, then its learner-progress rollup.
  await t.ctx.db.kysely.transaction().execute(async (trx) => {
    await trx.insertInto('sessions').values(session).execute()
    await recordSessionResult(trx, { tenantId: row.tenantId, mode: row.mode }, null, session)
  })
  return session
}
