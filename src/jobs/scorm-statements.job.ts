import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'
import { createLrsServices } from '../modules/lrs/index.ts'
import { ScormStatementWriter } from '../modules/lrs/scorm-statements.writer.ts'

export const SCORM_STATEMENTS_TASK = 'lrs.scorm_statements'

/**
 * `lrs.scorm_statements` (scheduled with the event fan-out, every EVENT_FANOUT_INTERVAL s,
 * default 300): writes the xAPI statements of SCORM launches and session events recorded since
 * its cursors (docs/lrs.md). Safe to run on many workers at once and to run again: statement
 * ids are derived from what they describe.
 */
export function scormStatementsTask(ctx: AppContext, settleSeconds?: number): TaskDefinition {
  return {
    async handler(_payload, { clock }) {
      const lrs = createLrsServices(ctx.db.kysely, clock)
      const writer = new ScormStatementWriter(ctx.db.kysely, clock, lrs.statements, {
        publicUrl: ctx.config.publicUrl,
        ...(settleSeconds !== undefined && { settleSeconds }),
      })
      await writer.run()
    },
  }
}
