/** The parts of `case.schema.json` (fixtures/scorm/adl-cts-4ed) the replay reads. */

export type Matcher =
  | { match: 'shorterThan'; length: number }
  | { match: 'learnerName' | 'learnerId' }
  | { match: 'objectiveIdSet'; ids: string[] }

export interface Step {
  index: number
  key: string
  method: string
  element?: string
  value?: string
  argument?: string
  indexLookup?: { placeholder: string; id: string; countElement: string; idElement: string }
  interactionType?: string
  expectedReturn: string | Matcher
  expectedErrorCode: string | null
  adlCheck: string
  acceptedErrorCodes?: string[]
}

export interface Event {
  type: string
  by?: string
  request?: string
  pendingRequest?: { request: string } | null
  scoCalls?: Array<{ method: string; args: string[] }>
}

export interface Delivery {
  key: string
  activity: string
  package: string | null
  items: Array<{ identifier: string }>
  steps: Step[]
  afterSteps: Event[]
}

export interface CtsCase {
  id: string
  learner: 'learner1' | 'learner2'
  packages: Array<{ id: string; manifest: string; sharedDataGlobalToSystem: boolean }>
  deliveries: Delivery[]
}

export type StepOutcome =
  | { status: 'passed'; typedOnly: boolean }
  | { status: 'failed'; detail: string }
  | { status: 'skipped'; reason: string }

export interface StepResult {
  caseId: string
  key: string
  outcome: StepOutcome
}
