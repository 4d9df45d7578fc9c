import type { Migration, MigrationProvider } from 'kysely/migration'
import type { Dialect } from '../schema.ts'
import { initialMigration } from './0001-initial.ts'
import { jobQueueMigration } from './0002-job-queue.ts'
import { sessionsMigration } from './0003-sessions.ts'
import { webhooksMigration } from './0004-webhooks.ts'
import { conversionsMigration } from './0005-conversions.ts'
import { dispatchesMigration } from './0006-dispatches.ts'
import { sharedDataMigration } from './0007-shared-data.ts'
import { scoDeliverySeqMigration } from './0008-sco-delivery-seq.ts'
import { runtimeValuesMigration } from './0010-runtime-values.ts'
import { dispatchRegistrationsMigration } from './0011-dispatch-registrations.ts'
import { lrsMigration } from './0012-lrs.ts'
import { cmi5Migration } from './0014-cmi5.ts'
import { accountsMigration } from './0015-accounts.ts'
import { sequencingStateMigration } from './0016-sequencing-state.ts'
import { listSeekIndexesMigration } from './0017-list-seek-indexes.ts'
import { sessionAttemptIndexMigration } from './0018-session-attempt-index.ts'
import { lrsCursorsMigration } from './0019-lrs-cursors.ts'
import { sessionListIndexesMigration } from './0020-session-list-indexes.ts'
import { sequencingNavigationMigration } from './0021-sequencing-navigation.ts'
import { lrsVersionsAndSeeksMigration } from './0022-lrs-versions-and-seeks.ts'
import { reportRollupsMigration } from './0023-report-rollups.ts'
import { reportLearnerSetsMigration } from './0024-report-learner-sets.ts'
import { dropRedundantDispatchIndexMigration } from './0025-drop-redundant-dispatch-index.ts'
import { sessionActivityMigration } from './0026-session-activity.ts'

/**
 * Migrations are listed here in order, so they are bundled with the code instead of being
 * discovered from the filesystem at run time. Names sort lexically: keep the numeric prefix.
 */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001-initial': initialMigration(dialect),
        '0002-job-queue': jobQueueMigration(dialect),
        '0003-sessions': sessionsMigration(dialect),
        '0004-webhooks': webhooksMigration(dialect),
        '0005-conversions': conversionsMigration(dialect),
        '0006-dispatches': dispatchesMigration(dialect),
        '0007-shared-data': sharedDataMigration(dialect),
        '0008-sco-delivery-seq': scoDeliverySeqMigration(dialect),
        '0010-runtime-values': runtimeValuesMigration(dialect),
        '0011-dispatch-registrations': dispatchRegistrationsMigration(dialect),
        '0012-lrs': lrsMigration(dialect),
        '0014-cmi5': cmi5Migration(dialect),
        '0015-accounts': accountsMigration(dialect),
        '0016-sequencing-state': sequencingStateMigration(dialect),
        '0017-list-seek-indexes': listSeekIndexesMigration(dialect),
        '0018-session-attempt-index': sessionAttemptIndexMigration(dialect),
        '0019-lrs-cursors': lrsCursorsMigration(dialect),
        '0020-session-list-indexes': sessionListIndexesMigration(dialect),
        '0021-sequencing-navigation': sequencingNavigationMigration(dialect),
        '0022-lrs-versions-and-seeks': lrsVersionsAndSeeksMigration(dialect),
        '0023-report-rollups': reportRollupsMigration(dialect),
        '0024-report-learner-sets': reportLearnerSetsMigration(dialect),
        '0025-drop-redundant-dispatch-index': dropRedundantDispatchIndexMigration(dialect),
        '0026-session-activity': sessionActivityMigration(dialect),
      }
    },
  }
}
