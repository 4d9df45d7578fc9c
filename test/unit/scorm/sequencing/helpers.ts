import { summarisePackage } from '../../../../src/modules/scorm/manifest/index.ts'
import {
  type ActivityTree,
  buildActivityTree,
  createTrackingState,
  type GlobalObjectiveMap,
  type NavigationOutcome,
  type NavigationRequest,
  processNavigationRequest,
  type ScoResults,
  type TrackingState,
} from '../../../../src/modules/scorm/sequencing/index.ts'

/**
 * A SCORM 2004 4th Edition manifest around `organization` (the inside of `<organization>`,
 * items and the organization's own `<imsss:sequencing>`), with `collection` as its
 * `<imsss:sequencingCollection>` content. Every leaf item launches resource R.
 */
export function manifest(organization: string, collection = ''): string {
  return `<?xml version="1.0"?>
<manifest identifier="m" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG">
    <organization identifier="ORG"><title>Course</title>${organization}</organization>
  </organizations>
  <resources>
    <resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource>
  </resources>
  ${collection ? `<imsss:sequencingCollection>${collection}</imsss:sequencingCollection>` : ''}
</manifest>`
}

/** `<item identifier=id>` launching R, with optional inner XML (sequencing…). */
export function leaf(id: string, inner = ''): string {
  return `<item identifier="${id}" identifierref="R"><title>${id}</title>${inner}</item>`
}

export function cluster(id: string, children: string, inner = ''): string {
  return `<item identifier="${id}"><title>${id}</title>${children}${inner}</item>`
}

export const FLOW = '<imsss:sequencing><imsss:controlMode flow="true"/></imsss:sequencing>'

export function treeOf(organization: string, collection = ''): ActivityTree {
  const summary = summarisePackage({
    layout: { contentType: 'scorm', manifestPath: 'imsmanifest.xml', warnings: [] },
    text: manifest(organization, collection),
    files: null,
    totalBytes: 0,
  })
  if (!summary.scorm) throw new Error('not SCORM')
  return buildActivityTree(summary.scorm)
}

/** A learner going through a course: keeps the state and globals between requests. */
export class Learner {
  state: TrackingState = createTrackingState()
  globals: GlobalObjectiveMap = {}
  last: NavigationOutcome | null = null
  readonly tree: ActivityTree
  random: () => number = () => 0

  constructor(tree: ActivityTree, globals: GlobalObjectiveMap = {}) {
    this.tree = tree
    this.globals = globals
  }

  nav(request: NavigationRequest | NavigationRequest['type'], results?: ScoResults) {
    const r = typeof request === 'string' ? { type: request } : request
    const out = processNavigationRequest(this.tree, this.state, r, {
      globals: this.globals,
      random: this.random,
      ...(results ? { results } : {}),
    })
    this.state = out.state
    this.globals = out.globals
    this.last = out
    return out
  }

  /** Navigates and returns the delivered activity id (null when nothing). */
  go(request: NavigationRequest | NavigationRequest['type'], results?: ScoResults) {
    return this.nav(request, results).deliver
  }
}
