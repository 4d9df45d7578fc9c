/** The parts of `case.schema.json` (fixtures/scorm/adl-cts-4ed) the sequencing replay reads. */
import type { Step } from '../../cts/case-types.ts'

export interface SeqEvent {
  type: 'terminate' | 'unload' | 'navigate' | 'exitCourse' | 'launch' | 'expect' | 'uiChecks'
  by?: string
  request?: string
  pendingRequest?: { request: string; target?: string } | null
  package?: string
  targets?: Array<{ identifier: string; root?: boolean }>
  what?: string
}

export interface SeqDelivery {
  key: string
  activity: string
  package: string | null
  items: Array<{ identifier: string }>
  steps: Step[]
  uiChecksAt?: 'beforeSteps' | 'afterTerminate'
  uiChecks?: Array<{ question: string; subject: string | null; expected: boolean }>
  afterSteps: SeqEvent[]
  instruction: { actions?: SeqEvent[] } | null
  next: { items: string[]; package: string | null } | null
}

export interface SeqCase {
  id: string
  packages: Array<{ id: string; manifest: string }>
  sharedState: { runsAfter: string[] }
  finalCheck: unknown
  start: { actions: SeqEvent[] }
  deliveries: SeqDelivery[]
}
