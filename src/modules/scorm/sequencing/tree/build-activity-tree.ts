import type {
  ManifestItem,
  ManifestOrganization,
  ScormStructure,
} from '../../manifest/manifest.types.ts'
import type { SequencingDefinition } from '../../manifest/sequencing.types.ts'
import type { Activity, ActivityTree } from './activity-tree.types.ts'
import {
  completionThresholdOf,
  controlModeOf,
  durationSeconds,
  mergeSequencing,
  objectivesOf,
  randomizationOf,
  rollupConsiderationsOf,
  rollupRulesOf,
  sequencingRulesOf,
} from './sequencing-defaults.ts'

/**
 * Builds the activity tree of one organization (default: the manifest's default organization):
 * the organization is the root activity, each `<item>` an activity.
 */
export function buildActivityTree(scorm: ScormStructure, organizationId?: string): ActivityTree {
  const wanted = organizationId ?? scorm.defaultOrganization
  const org =
    scorm.organizations.find((o) => o.identifier === wanted) ?? scorm.organizations[0] ?? null
  if (!org) throw new Error('The manifest has no organization to sequence.')
  const activities: Record<string, Activity> = {}
  const collection = scorm.sequencingCollection
  const resources = new Map(scorm.resources.map((r) => [r.identifier, r]))
  activities[org.identifier] = rootActivity(org, collection)
  const visit = (item: ManifestItem, parent: string) => {
    const def = mergeSequencing(item.sequencing, collection)
    const id = item.identifier.trim()
    const isLeaf = item.children.length === 0
    const resource = item.identifierref ? resources.get(item.identifierref) : undefined
    activities[id] = {
      ...activityFrom(def, id, item.title, parent),
      children: item.children.map((c) => c.identifier.trim()),
      resourceId: isLeaf ? (item.identifierref ?? null) : null,
      launchHref: isLeaf ? item.launchHref : null,
      scormType: isLeaf ? (item.scormType ?? resource?.scormType ?? null) : null,
      isVisible: item.isvisible,
      hideLmsUi: item.hideLmsUi,
      completionThreshold: completionThresholdOf(item.completionThreshold),
    }
    for (const child of item.children) visit(child, id)
  }
  for (const item of org.items) visit(item, org.identifier)
  return {
    root: org.identifier,
    activities,
    objectivesGlobalToSystem: org.objectivesGlobalToSystem,
  }
}

function rootActivity(
  org: ManifestOrganization,
  collection: readonly SequencingDefinition[],
): Activity {
  const def = mergeSequencing(org.sequencing, collection)
  return {
    ...activityFrom(def, org.identifier, org.title, null),
    children: org.items.map((i) => i.identifier.trim()),
  }
}

/** Every definition element with its default; the caller adds what only items carry. */
function activityFrom(
  def: SequencingDefinition,
  id: string,
  title: string,
  parent: string | null,
): Activity {
  const rollup = def.rollupRules
  const delivery = def.deliveryControls ?? {}
  return {
    id,
    title,
    parent,
    children: [],
    resourceId: null,
    launchHref: null,
    scormType: null,
    isVisible: true,
    hideLmsUi: [],
    controlMode: controlModeOf(def),
    preConditionRules: sequencingRulesOf(def, 'pre'),
    exitConditionRules: sequencingRulesOf(def, 'exit'),
    postConditionRules: sequencingRulesOf(def, 'post'),
    limitConditions: {
      attemptLimit: def.limitConditions?.attemptLimit ?? null,
      attemptAbsoluteDurationLimit: durationSeconds(
        def.limitConditions?.attemptAbsoluteDurationLimit,
      ),
    },
    rollupRules: rollupRulesOf(def),
    rollupObjectiveSatisfied: rollup?.rollupObjectiveSatisfied ?? true,
    rollupProgressCompletion: rollup?.rollupProgressCompletion ?? true,
    objectiveMeasureWeight: rollup?.objectiveMeasureWeight ?? 1,
    objectives: objectivesOf(def),
    randomization: randomizationOf(def),
    deliveryControls: {
      tracked: delivery.tracked ?? true,
      completionSetByContent: delivery.completionSetByContent ?? false,
      objectiveSetByContent: delivery.objectiveSetByContent ?? false,
    },
    preventActivation: def.constrainedChoiceConsiderations?.preventActivation ?? false,
    constrainChoice: def.constrainedChoiceConsiderations?.constrainChoice ?? false,
    rollupConsiderations: rollupConsiderationsOf(def),
    completionThreshold: completionThresholdOf(null),
  }
}
