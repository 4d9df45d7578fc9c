import type { Kysely } from 'kysely'
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

/** The LRS's services over one database; they hold no state of their own. */
export function createLrsServices(db: Kysely<Database>, clock: Clock): LrsServices {
  return {
    credentials: new CredentialService(db, clock),
    statements: new StatementService(db, clock),
    documents: new DocumentService(db, clock),
  }
}
