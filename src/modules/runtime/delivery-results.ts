/**
 * What one delivery (a launch of a SCO) reported to the sequencer, read from what the server
 * stored for it: the elements its commits wrote — a status the SCO set to `unknown` included
 * (it makes the status unknown, CTS CM-15; ending never records that default for a status the
 * SCO did not set) — read from its values as the data model evaluates them.
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import type { LaunchData } from '../scorm/data-model/index.ts'
import type { ScoResults } from '../scorm/sequencing/index.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { reportedResults } from './attempt-sequencing.ts'
import { launchValues } from './delivery-record.ts'
import * as repo from './runtime.repository.ts'
import * as scoValues from './sco-values.repository.ts'

export interface DeliveryResults {
  itemId: string
  results: ScoResults
  /** The delivery's cmi.exit (its values, not only what it wrote). */
  exit: string | undefined
}

/** Null for an unknown delivery and for a review launch (it reports nothing). */
export async function deliveryResults(
  trx: Executor,
  session: SessionsTable,
  deliveryId: string,
): Promise<DeliveryResults | null> {
  const scope = scopeOfSession(session)
  const delivery = await repo.findDelivery(trx, scope, session.id, deliveryId)
  if (!delivery) return null
  const launchData = JSON.parse(delivery.launch_data) as LaunchData
  if (launchData.mode === 'review') return null
  const rows = await scoValues.findScoValues(trx, scope, session.id, delivery.item_id)
  const version = session.scorm_version === '1.2' ? '1.2' : '2004'
  const values = launchValues(version, launchData, rows, deliveryId)
  const written: Record<string, string> = {}
  for (const row of rows) if (row.delivery_id === deliveryId) written[row.element] = row.value
  const results = reportedResults(written, values, true) ?? {}
  return { itemId: delivery.item_id, results, exit: values['cmi.exit'] }
}

/**
 * The results of the delivery the sequencer launched last (`sequencing_delivery_id`), by item:
 * what the next navigation will record when it ends that SCO's attempt (none when it abandons
 * it). Empty when no delivery is pending (nothing was launched since the last navigation).
 */
export async function pendingResults(
  trx: Executor,
  session: SessionsTable,
): Promise<Record<string, ScoResults>> {
  const id = session.sequencing_delivery_id
  const pending = id ? await deliveryResults(trx, session, id) : null
  if (!pending) return {}
  const { exit: _exit, ...reported } = pending.results
  return { [pending.itemId]: reported }
}
