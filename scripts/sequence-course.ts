/**
 * Runs a SCORM 2004 manifest and a list of navigation requests through the sequencing engine
 * and prints each step: what was delivered or refused (with the SN book's exception code), the
 * controls and table of contents the player would show, and optionally the tracking state.
 *
 *   node scripts/sequence-course.ts path/to/imsmanifest.xml start continue@passed,completed \
 *     choice:activity_3 exitAll [--state] [--globals=globals.json]
 *
 * A step is `request[:target][@results]`: request is start, resumeAll, continue, previous,
 * choice, jump, exit, exitAll, abandon, abandonAll, suspendAll; results are what the SCO being
 * left reported before the request: completed, incomplete, passed, failed, score=0.8,
 * progress=0.5, exit=suspend, or objective results as <objectiveId>=passed|failed.
 * Random selection/randomization is fixed (always the first draw) so runs repeat.
 */
import { readFileSync } from 'node:fs'
import { summarisePackage } from '../src/modules/scorm/manifest/index.ts'
import {
  buildActivityTree,
  createTrackingState,
  type GlobalObjectiveMap,
  type NavigationRequest,
  type ObjectiveResult,
  parseNavigationRequest,
  processNavigationRequest,
  type ScoResults,
  uiState,
} from '../src/modules/scorm/sequencing/index.ts'

function parseStep(token: string): { request: NavigationRequest; results?: ScoResults } {
  const [head = '', results] = token.split('@')
  const [type = '', target] = head.split(':')
  const request =
    target === undefined
      ? parseNavigationRequest(type)
      : parseNavigationRequest(`{target=${target}}${type}`)
  if (!request) throw new Error(`not a navigation request: ${head}`)
  return results === undefined ? { request } : { request, results: parseResults(results) }
}

function parseResults(list: string): ScoResults {
  const out: ScoResults = {}
  const objectives: ObjectiveResult[] = []
  for (const part of list.split(',').filter(Boolean)) {
    const [key = '', value] = part.split('=')
    if (key === 'completed' || key === 'incomplete') out.completion_status = key
    else if (key === 'passed' || key === 'failed') out.success_status = key
    else if (key === 'score') out.score_scaled = Number(value)
    else if (key === 'progress') out.progress_measure = Number(value)
    else if (key === 'exit') out.exit = value ?? ''
    else if (value) objectives.push({ id: key, success_status: value })
    else throw new Error(`unknown result ${part}`)
  }
  if (objectives.length > 0) out.objectives = objectives
  return out
}

function describeUi(ui: ReturnType<typeof uiState>): string {
  const controls = (['continue', 'previous', 'exitAll', 'suspendAll'] as const)
    .map((c) => `${c}:${ui[c].hidden ? 'hidden' : ui[c].enabled ? 'on' : 'off'}`)
    .join(' ')
  const toc = ui.toc
    .filter((e) => e.depth > 0)
    .map((e) => {
      const marks = `${e.current ? '>' : ''}${e.visible ? '' : '(hidden)'}${e.selectable ? '' : '(x)'}`
      const status = `${e.completed === true ? ' done' : ''}${e.satisfied === true ? ' passed' : e.satisfied === false ? ' failed' : ''}`
      return `${'  '.repeat(e.depth)}${marks}${e.id}${status}`
    })
  return `    ${controls} toc:${ui.tocEnabled ? 'on' : 'off'}\n${toc.map((l) => `    ${l}`).join('\n')}`
}

function main(argv: string[]): void {
  const flags = argv.filter((a) => a.startsWith('--'))
  const [manifestPath, ...steps] = argv.filter((a) => !a.startsWith('--'))
  if (!manifestPath) {
    console.error('usage: node scripts/sequence-course.ts imsmanifest.xml step... [--state]')
    process.exitCode = 2
    return
  }
  const summary = summarisePackage({
    layout: { contentType: 'scorm', manifestPath: 'imsmanifest.xml', warnings: [] },
    text: readFileSync(manifestPath, 'utf8'),
    files: null,
    totalBytes: 0,
  })
  if (!summary.scorm) throw new Error('not a SCORM manifest')
  const tree = buildActivityTree(summary.scorm)
  const globalsFlag = flags.find((f) => f.startsWith('--globals='))
  let globals: GlobalObjectiveMap = globalsFlag
    ? (JSON.parse(
        readFileSync(globalsFlag.slice('--globals='.length), 'utf8'),
      ) as GlobalObjectiveMap)
    : {}
  let state = createTrackingState()
  for (const token of steps) {
    const { request, results } = parseStep(token)
    const out = processNavigationRequest(tree, state, request, {
      globals,
      random: () => 0,
      ...(results ? { results } : {}),
    })
    state = out.state
    globals = out.globals
    const what = out.deliver
      ? `deliver ${out.deliver}${out.resumed ? ' (resume)' : ''}`
      : out.sessionEnded
        ? `session ended${out.attemptEnded ? ', attempt over' : ', suspended'}`
        : `nothing delivered${out.exception ? ` (${out.exception})` : ''}`
    console.log(`${token} -> ${out.valid ? '' : 'refused: '}${what}`)
    console.log(describeUi(uiState(tree, state, { globals })))
    if (flags.includes('--state')) console.log(`    state ${JSON.stringify(state.activities)}`)
  }
  if (flags.includes('--state')) console.log(`globals ${JSON.stringify(globals)}`)
}

main(process.argv.slice(2))
