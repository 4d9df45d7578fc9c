import type { LaunchData } from '../scorm/data-model/index.ts'
import type { ManifestItem } from '../scorm/manifest/index.ts'

function decodeId(id: string): string {
  try {
    return decodeURIComponent(id)
  } catch {
    return id
  }
}

export interface PreviousRecord {
  suspended: boolean
  totalTime: string | null
  carry: Record<string, string>
}

/**
 * What the LMS supplies when a SCO starts: learner, credit, entry, the item's manifest values
 * (mastery score, thresholds, time limits, data from LMS, objectives, shared data) and, when
 * the previous launch suspended, its time and learner-writable values.
 */
export function buildLaunchData(input: {
  version: '1.2' | '2004'
  learnerId: string
  learnerName: string
  item: ManifestItem | null
  previous: PreviousRecord | null
  /** Another launch of this item already happened in the attempt (1.2 entry '' vs ab-initio). */
  launchedBefore: boolean
  /** The current value of each shared data bucket (adl.data) that has one, by target id. */
  sharedStores?: ReadonlyMap<string, string>
  /**
   * SCORM 2004: `cmi.objectives.n` values by objective id, as the sequencing engine reads them
   * (the activity's tracking state through its read maps: what another SCO or course wrote to a
   * global objective). Default: none (the data model's `unknown`s).
   */
  objectiveValues?: ReadonlyMap<string, Readonly<Record<string, string>>>
}): LaunchData {
  const { item, previous, version } = input
  const resume = previous?.suspended === true
  const entry: LaunchData['entry'] = resume
    ? 'resume'
    : version === '1.2' && input.launchedBefore
      ? ''
      : 'ab-initio'
  const objectives = item?.sequencing?.objectives
  const declared = objectives
    ? [objectives.primary, ...objectives.others]
        .filter((o) => o?.objectiveID)
        .map((o) => {
          const id = decodeId(o?.objectiveID ?? '')
          const values = input.objectiveValues?.get(id.replace(/\s+/g, ' ').trim())
          return values && Object.keys(values).length > 0 ? { id, values } : { id }
        })
    : []
  const threshold = item?.completionThreshold
  return {
    learnerId: input.learnerId,
    learnerName: input.learnerName,
    credit: 'credit',
    mode: 'normal',
    entry,
    ...(item?.dataFromLms != null && { launchData: item.dataFromLms }),
    ...(version === '2004' &&
      threshold?.completedByMeasure && {
        completionThreshold: String(threshold.minProgressMeasure),
      }),
    ...(version === '2004' &&
      item?.scaledPassingScore != null && { scaledPassingScore: String(item.scaledPassingScore) }),
    ...(version === '1.2' &&
      item?.masteryScore != null && { masteryScore: String(item.masteryScore) }),
    ...(item?.maxTimeAllowed != null && { maxTimeAllowed: item.maxTimeAllowed }),
    ...(item?.timeLimitAction != null && { timeLimitAction: item.timeLimitAction }),
    ...(resume && previous?.totalTime && { totalTime: previous.totalTime }),
    ...(version === '2004' && declared.length > 0 && { objectives: declared }),
    ...(version === '2004' &&
      item &&
      item.sharedData.length > 0 && {
        sharedData: item.sharedData.map((d) => {
          const store = d.readSharedData ? input.sharedStores?.get(d.targetID) : undefined
          return {
            id: d.targetID,
            readable: d.readSharedData,
            writable: d.writeSharedData,
            ...(store !== undefined && { store }),
          }
        }),
      }),
    ...(resume && { values: previous?.carry ?? {} }),
  }
}
