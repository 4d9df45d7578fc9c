import type { AppContext } from '../context.ts'
import { inviteUrl } from '../http/customer/customer.routes.ts'
import { AccountService } from '../modules/accounts/account.service.ts'

/** The development tenant's dashboard owner: its e-mail, for signing in after the first time. */
export const DEV_OWNER_EMAIL = 'owner@dev.localhost'

/**
 * Lines for the first start's banner: a one-time link (72 hours) where the development owner
 * chooses a password and lands signed in on the dashboard.
 */
export async function developmentOwnerLink(ctx: AppContext, tenantId: string): Promise<string[]> {
  const accounts = new AccountService({ db: ctx.db.kysely, clock: ctx.clock })
  const invite = await accounts.createInvite(
    tenantId,
    { email: DEV_OWNER_EMAIL, role: 'owner' },
    null,
  )
  return [
    'Dashboard: choose a password for the development owner at this one-time link:',
    `  ${inviteUrl(ctx.config.publicUrl, invite.token)}`,
    `  then sign in at ${ctx.config.publicUrl}/dashboard/ as ${DEV_OWNER_EMAIL}`,
    '',
  ]
}
