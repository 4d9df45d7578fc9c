import { inviteUrl } from '../http/customer/customer.routes.ts'
import type { Db } from '../infra/db/database.ts'
import type { DashboardRole } from '../infra/db/tables/accounts.ts'
import { AccountService, ROLES } from '../modules/accounts/account.service.ts'
import { systemClock } from '../shared/clock.ts'
import { UsageError } from './usage-error.ts'

type WithDatabase = <T>(fn: (db: Db) => Promise<T>) => Promise<T>

/**
 * `courseport user create --tenant TENANT_ID --email EMAIL [--role owner|admin|viewer] [--json]`
 * (default role owner): prints a one-time link where the user chooses a password and is signed
 * in (valid 72 hours). No e-mail is sent.
 */
export async function userCommand(
  sub: string | undefined,
  values: { tenant?: string; email?: string; role?: string; json?: boolean },
  publicUrl: string,
  withDatabase: WithDatabase,
): Promise<void> {
  const role = values.role ?? 'owner'
  if (sub !== 'create' || !values.tenant || !values.email || !isRole(role))
    throw new UsageError('user create needs --tenant ID --email EMAIL [--role owner|admin|viewer]')
  const { tenant, email } = values
  const invite = await withDatabase((db) =>
    new AccountService({ db: db.kysely, clock: systemClock }).createInvite(
      tenant,
      { email, role },
      null,
    ),
  )
  const link = inviteUrl(publicUrl, invite.token)
  const out = values.json
    ? JSON.stringify({
        email: invite.email,
        role,
        set_password_url: link,
        expires_at: invite.expiresAt,
      })
    : `${invite.email} (${role}): choose a password at this one-time link (until ${invite.expiresAt}):\n${link}`
  process.stdout.write(`${out}\n`)
}

function isRole(value: string): value is DashboardRole {
  return (ROLES as readonly string[]).includes(value)
}
