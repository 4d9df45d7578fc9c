/**
 * Grades the CTS steps whose expected value only a sequencer can produce — the ones the
 * data-model replay (test/unit/scorm/cts) runs but skips: `adl.nav.request_valid.*` answers and
 * reads of objectives mapped to global objectives (cmi.objectives.n.* and, for a mapped primary
 * objective, cmi.*). Every other step is graded by the data-model replay.
 */
import type { Api2004 } from '../../../../../src/modules/scorm/data-model/index.ts'
import type { Step } from '../../cts/case-types.ts'
import type { ManifestItem } from '../../cts/manifest-items.ts'
import { typedEqual } from '../../cts/typed-compare.ts'

export type SeqStepKind = 'requestValid' | 'globalRead'

const OBJECTIVE_VALUE =
  /^cmi\.objectives\.(\d+)\.(success_status|completion_status|progress_measure|score\.\w+)$/
const PRIMARY_VALUE = /^cmi\.(success_status|completion_status|progress_measure|score\.\w+)$/

/** Which sequencer-dependent check a step is, if any (call before the step runs). */
export function seqStepKind(
  api: Api2004,
  step: Step,
  element: string,
  item: ManifestItem | undefined,
): SeqStepKind | null {
  if (step.method !== 'GetValue') return null
  if (element.startsWith('adl.nav.request_valid.')) return 'requestValid'
  if (!item) return null
  const objective = OBJECTIVE_VALUE.exec(element)
  if (objective) {
    const id = step.indexLookup?.id ?? api.GetValue(`cmi.objectives.${objective[1]}.id`)
    return item.mappedObjectives.has(id) ? 'globalRead' : null
  }
  const primary = item.primaryObjectiveId
  if (PRIMARY_VALUE.test(element) && primary && item.mappedObjectives.has(primary))
    return 'globalRead'
  return null
}

/** Null when the step returned what the case declares (the declared value, not ADL's lenient
 * "any answer" for request_valid), else what went wrong. */
export function gradeSeqStep(
  step: Step,
  element: string,
  actual: string,
  code: string,
): string | null {
  const expected = step.expectedReturn
  if (typeof expected !== 'string') return `unexpected matcher ${JSON.stringify(expected)}`
  const codeOk =
    step.adlCheck === 'requestValidAnyNoErrorCode' || code === (step.expectedErrorCode ?? code)
  const valueOk =
    actual === expected ||
    (step.adlCheck === 'typed' && typedEqual(actual, expected, element, step.interactionType))
  if (valueOk && codeOk) return null
  return `${step.key} GetValue(${element}) = ${JSON.stringify(actual)} / ${code}, expected ${JSON.stringify(expected)} / ${step.expectedErrorCode}`
}
