/**
 * Runs one CTS step against the API and grades it the way the case says ADL graded it
 * (`adlCheck`), or reports why it cannot be graded without a sequencer.
 */
import type { Api2004 } from '../../../../src/modules/scorm/data-model/index.ts'
import type { Step, StepOutcome } from './case-types.ts'
import type { ManifestItem } from './manifest-items.ts'
import { typedEqual } from './typed-compare.ts'

const OBJECTIVE_VALUE =
  /^cmi\.objectives\.(\d+)\.(success_status|completion_status|progress_measure|score\.\w+)$/
const PRIMARY_VALUE = /^cmi\.(success_status|completion_status|progress_measure|score\.\w+)$/

/** Why a step's expected value depends on a sequencer this replay does not have, if it does. */
function skipReason(
  api: Api2004,
  step: Step,
  element: string,
  item: ManifestItem,
): string | undefined {
  if (step.method !== 'GetValue') return undefined
  if (element.startsWith('adl.nav.request_valid.')) return 'request_valid answer needs a sequencer'
  const objective = OBJECTIVE_VALUE.exec(element)
  if (objective) {
    const id = step.indexLookup?.id ?? api.GetValue(`cmi.objectives.${objective[1]}.id`)
    if (item.mappedObjectives.has(id)) return 'objective read through a global objective map'
  }
  if (
    PRIMARY_VALUE.test(element) &&
    item.primaryObjectiveId &&
    item.mappedObjectives.has(item.primaryObjectiveId)
  ) {
    return 'primary objective read through a global objective map'
  }
  return undefined
}

export function runStep(
  api: Api2004,
  step: Step,
  item: ManifestItem,
  learner: { learnerId: string; learnerName: string },
): StepOutcome {
  if (step.method === 'CompareObjectiveIds') return compareObjectiveIds(api, step)
  let element = step.element ?? ''
  if (step.indexLookup) {
    const index = lookupIndex(api, step.indexLookup)
    if (index === undefined) {
      return item.mappedObjectives.has(step.indexLookup.id)
        ? { status: 'skipped', reason: 'objective read through a global objective map' }
        : {
            status: 'failed',
            detail: `no ${step.indexLookup.countElement} entry has id ${step.indexLookup.id}`,
          }
    }
    element = element.replace(step.indexLookup.placeholder, String(index))
  }
  const skip = skipReason(api, step, element, item)
  const actual = call(api, step, element)
  const code = api.GetLastError()
  if (skip) return { status: 'skipped', reason: skip }
  return grade(step, element, actual, code, learner)
}

function call(api: Api2004, step: Step, element: string): string {
  const arg = step.argument ?? ''
  switch (step.method) {
    case 'Initialize':
      return api.Initialize(arg)
    case 'Terminate':
      return api.Terminate(arg)
    case 'Commit':
      return api.Commit(arg)
    case 'GetValue':
      return api.GetValue(element)
    case 'SetValue':
      return api.SetValue(element, step.value ?? '')
    case 'GetLastError':
      return api.GetLastError()
    case 'GetErrorString':
      return api.GetErrorString(arg)
    case 'GetDiagnostic':
      return api.GetDiagnostic(arg)
    default:
      throw new Error(`unknown method ${step.method}`)
  }
}

function grade(
  step: Step,
  element: string,
  actual: string,
  code: string,
  learner: { learnerId: string; learnerName: string },
): StepOutcome {
  const expected = step.expectedReturn
  const codeOk =
    step.adlCheck === 'requestValidAnyNoErrorCode' ||
    (step.acceptedErrorCodes
      ? step.acceptedErrorCodes.includes(code)
      : code === step.expectedErrorCode)
  let valueOk: boolean
  let typedOnly = false
  if (typeof expected === 'object') {
    if (expected.match === 'shorterThan') valueOk = actual.length < expected.length
    else if (expected.match === 'learnerId') valueOk = actual === learner.learnerId
    else if (expected.match === 'learnerName') valueOk = actual === learner.learnerName
    else valueOk = false
  } else if (step.adlCheck === 'errorCodeOnly' || step.adlCheck === 'commentsFromLms') {
    valueOk = true
  } else if (step.adlCheck === 'empty') {
    valueOk = actual === ''
  } else {
    valueOk = actual === expected
    if (
      !valueOk &&
      (step.adlCheck === 'typed' ||
        (step.adlCheck === 'exact' && expected === '' && actual.startsWith('{')))
    ) {
      valueOk = typedEqual(actual, expected, element, step.interactionType)
      typedOnly = valueOk
    }
  }
  if (valueOk && codeOk) return { status: 'passed', typedOnly }
  const show = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s)
  const want = typeof expected === 'string' ? show(expected) : JSON.stringify(expected)
  return {
    status: 'failed',
    detail: `${step.method}(${show(element || step.argument || '')}${step.value === undefined ? '' : `, ${show(step.value)}`}) returned ${show(actual)} / ${code}, expected ${want} / ${step.expectedErrorCode}`,
  }
}

function lookupIndex(api: Api2004, lookup: NonNullable<Step['indexLookup']>): number | undefined {
  const count = Number(api.GetValue(lookup.countElement))
  for (let n = 0; n < count; n++) {
    if (api.GetValue(lookup.idElement.replace('{n}', String(n))) === lookup.id) return n
  }
  return undefined
}

function compareObjectiveIds(api: Api2004, step: Step): StepOutcome {
  const expected = step.expectedReturn
  if (typeof expected !== 'object' || expected.match !== 'objectiveIdSet') {
    return { status: 'failed', detail: 'CompareObjectiveIds without an id set' }
  }
  const count = Number(api.GetValue('cmi.objectives._count'))
  const ids = Array.from({ length: count }, (_, n) => api.GetValue(`cmi.objectives.${n}.id`))
  const ok = count === expected.ids.length && ids.every((id) => expected.ids.includes(id))
  return ok
    ? { status: 'passed', typedOnly: false }
    : {
        status: 'failed',
        detail: `objective ids ${JSON.stringify(ids)}, expected ${JSON.stringify(expected.ids)}`,
      }
}
