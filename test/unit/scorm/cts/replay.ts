/**
 * Replays the steps of one ADL CTS case (fixtures/scorm/adl-cts-4ed) against createRuntime. It
 * plays the LMS around the runtime the simple way a data-model test can: one fresh API instance
 * per delivery, launch data from the manifest, suspended attempts resumed through endSession's
 * carry-over, adl.data stores shared per learner. There is no sequencer, so steps whose expected
 * value only a sequencer can produce are run but not graded, and each gets a skip reason.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  createRuntime,
  endSession,
  type LaunchData,
} from '../../../../src/modules/scorm/data-model/index.ts'
import type { CtsCase, StepResult } from './case-types.ts'
import { type ManifestItem, readManifestItems } from './manifest-items.ts'
import { runStep } from './run-step.ts'

export type { CtsCase, StepResult } from './case-types.ts'

export const CTS_DIR = join(import.meta.dirname, '../../../../../shared/fixtures/scorm/adl-cts-4ed')

const LEARNERS = {
  learner1: { learnerId: 'cts-learner-1', learnerName: 'Learner, One' },
  learner2: { learnerId: 'cts-learner-2', learnerName: 'Learner, Two' },
}

export function loadCase(file: string): CtsCase {
  return JSON.parse(readFileSync(file, 'utf8')) as CtsCase
}

interface ActivityRecord {
  suspended: boolean
  totalTime: string
  carry: Record<string, string>
}

export function replayCase(c: CtsCase): StepResult[] {
  const learner = LEARNERS[c.learner]
  const manifests = new Map(
    c.packages.map((p) => [p.id, readManifestItems(join(CTS_DIR, p.manifest))]),
  )
  const records = new Map<string, ActivityRecord>()
  const shared = new Map<string, string>()
  const results: StepResult[] = []

  for (const d of c.deliveries) {
    const pkg = c.packages.find((p) => p.id === d.package) ?? c.packages[0]
    const item = pkg && manifests.get(pkg.id)?.get(d.items[0]?.identifier ?? '')
    if (!pkg || !item) throw new Error(`${c.id} ${d.key}: item not found in the manifest`)
    const scope = pkg.sharedDataGlobalToSystem ? '*' : pkg.id
    const recordKey = `${pkg.id}|${item.identifier}`
    const record = records.get(recordKey)
    const rt = createRuntime({
      version: '2004',
      initial: launchFor(item, learner, record, (id) => shared.get(`${scope}|${id}`)),
      onCommit: (delta) => {
        for (const [element, value] of Object.entries(delta.values)) {
          const m = /^adl\.data\.(\d+)\.store$/.exec(element)
          const target = m ? item.sharedData[Number(m[1])]?.id : undefined
          if (target !== undefined) shared.set(`${scope}|${target}`, value)
        }
        return true
      },
    })
    for (const step of d.steps) {
      results.push({ caseId: c.id, key: step.key, outcome: runStep(rt.api, step, item, learner) })
    }
    let request: string | undefined
    let courseEnds = false
    for (const e of d.afterSteps) {
      if (e.type === 'terminate' && rt.phase() === 'running') {
        rt.api.Terminate('')
        request ??= e.pendingRequest?.request
      } else if (e.type === 'unload') {
        for (const call of e.scoCalls ?? []) {
          if (call.method === 'SetValue') rt.api.SetValue(call.args[0], call.args[1])
          if (call.method === 'Terminate') rt.api.Terminate('')
        }
        request ??= e.pendingRequest?.request
      } else if (e.type === 'navigate') {
        request ??= e.request
      } else if (e.type === 'exitCourse') {
        request ??= 'exitAll'
      }
    }
    if (rt.phase() === 'running') rt.api.Terminate('')
    if (request === 'exitAll' || request === 'abandonAll') courseEnds = true
    const outcome = endSession(
      '2004',
      rt.state(),
      request === undefined ? {} : { navRequest: request },
    )
    if (courseEnds) {
      // The course attempt is over: every activity starts afresh, and shared data that is not
      // global to the system belongs to that attempt.
      for (const key of records.keys()) if (key.startsWith(`${pkg.id}|`)) records.delete(key)
      for (const key of shared.keys()) if (key.startsWith(`${pkg.id}|`)) shared.delete(key)
    } else
      records.set(recordKey, {
        suspended: outcome.suspended,
        totalTime: outcome.totalTime,
        carry: outcome.carry,
      })
  }
  return results
}

function launchFor(
  item: ManifestItem,
  learner: { learnerId: string; learnerName: string },
  record: ActivityRecord | undefined,
  store: (id: string) => string | undefined,
): LaunchData {
  const resume = record?.suspended === true
  return {
    ...learner,
    entry: resume ? 'resume' : 'ab-initio',
    ...(resume ? { totalTime: record.totalTime, values: record.carry } : {}),
    ...(item.dataFromLMS === undefined ? {} : { launchData: item.dataFromLMS }),
    ...(item.timeLimitAction === undefined ? {} : { timeLimitAction: item.timeLimitAction }),
    ...(item.completionThreshold === undefined
      ? {}
      : { completionThreshold: item.completionThreshold }),
    ...(item.scaledPassingScore === undefined
      ? {}
      : { scaledPassingScore: item.scaledPassingScore }),
    ...(item.maxTimeAllowed === undefined ? {} : { maxTimeAllowed: item.maxTimeAllowed }),
    objectives: item.objectives.map((o) => ({ id: o.id })),
    sharedData: item.sharedData.map((m) => {
      const value = store(m.id)
      return {
        id: m.id,
        readable: m.readable,
        writable: m.writable,
        ...(value === undefined ? {} : { store: value }),
      }
    }),
  }
}
