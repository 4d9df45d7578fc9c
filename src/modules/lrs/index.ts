import type { Kysely } from 'kysely'
import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Database } from '../../infra/db/schema.ts'
import type { Clock } from '../../shared/clock.ts'
import { CredentialService } from './credential.service.ts'
import { DocumentService } from './document.service.ts'
import { StatementService } from './statement.service.ts'

export interface LrsServices {
  credentials: CredentialService
  statements: StatementService
  documents: DocumentService
}

/**
 * The LRS's services over one database; they hold no state of their own. `writes` runs statement
 * writes (default: a transaction each; the /xapi routes pass a group-commit runner).
 */
export function createLrsServices(
  db: Kysely<Database>,
  clock: Clock,
  writes?: TransactionRunner,
): LrsServices {
  return {
    credentials: new CredentialService(db, clock),
    statements: new StatementService(db, clock, writes),
    documents: new DocumentService(db, clock),
  }
}
