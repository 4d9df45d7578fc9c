/**
 * SCORM 2004 4th Edition run-time data model (RTE book, section 4) plus the ADL navigation
 * (`adl.nav.*`) and shared data (`adl.data.*`) models. `_children` strings follow the order ADL's
 * sample RTE answers, which the conformance suite compares exactly.
 */
import {
  collection,
  type ElementContext,
  type ElementTable,
  group,
  leaf,
  type ValueCheck,
} from './element-spec.ts'
import { type Failure, fail } from './errors.ts'
import {
  checkLearnerResponse2004,
  checkPattern2004,
  INTERACTION_TYPES_2004,
  maxCorrectResponses2004,
  samePattern2004,
} from './interaction-responses.ts'
import { evaluateCompletionStatus, evaluateSuccessStatus } from './status-rules.ts'
import {
  characterString,
  identifier,
  language,
  localizedString,
  real,
  splitLangPrefix,
  timeInterval,
  timestamp,
  vocabulary,
} from './value-types.ts'

const COMPLETION = ['completed', 'incomplete', 'not attempted', 'unknown'] as const
const SUCCESS = ['passed', 'failed', 'unknown'] as const
const RESULT_WORDS = vocabulary(['correct', 'incorrect', 'unanticipated', 'neutral'])
const anyReal = real()
const scaled = real(-1, 1)
const unitInterval = real(0, 1)

/**
 * The standard's smallest permitted maximums (SPMs, RTE 4th Edition §4.2), enforced as limits so
 * one attempt's data stays bounded: array sizes and element lengths.
 */
const SPM = {
  interactions: 250,
  interactionObjectives: 10,
  objectives: 100,
  commentsFromLearner: 250,
  identifier: 4000,
  location: 1000,
  description: 250,
  comment: 4000,
  commentLocation: 250,
} as const

const tooLong = (length: number, max: number) =>
  fail('too-long', `value has ${length} characters; the limit is ${max}`)

/**
 * long_identifier_type (SPM 4000 characters). With the `lenientIdentifiers` option any
 * non-empty string is accepted, as content such as Storyline 360 writes "SL360 LMS SCORM 2004".
 */
const longIdentifier: ValueCheck = (value, ctx) => {
  if (value.length > SPM.identifier) return tooLong(value.length, SPM.identifier)
  if (!ctx.env.options.lenientIdentifiers) return identifier(value)
  return value === '' ? fail('type-mismatch', 'an identifier must not be empty') : undefined
}

/** localized_string_type whose text (after any {lang=…}) holds at most `max` characters. */
const localized =
  (max: number): ValueCheck =>
  (value) => {
    const invalid = localizedString(value)
    if (invalid) return invalid
    const text = splitLangPrefix(value)?.text ?? value
    return text.length > max ? tooLong(text.length, max) : undefined
  }

const NAV_REQUEST =
  /^(?:continue|previous|exit|exitAll|abandon|abandonAll|suspendAll|_none_|\{target=[^}]+\}(?:choice|jump))$/

const interactionType = (ctx: ElementContext) => ctx.get(`${ctx.itemPath(0)}.type`)

const needsType = (ctx: ElementContext): Failure | undefined =>
  interactionType(ctx) === undefined
    ? fail('dependency', 'set cmi.interactions.n.type before responses')
    : undefined

/** A type change must keep the responses already stored valid, so state never holds bad data. */
function typeFitsExistingResponses(type: string, ctx: ElementContext): Failure | undefined {
  const item = ctx.itemPath(0)
  const response = ctx.get(`${item}.learner_response`)
  const conflict = fail('set-failure', `stored responses do not fit interaction type ${type}`)
  if (response !== undefined && checkLearnerResponse2004(type, response)) return conflict
  const count = ctx.count(`${item}.correct_responses`)
  const max = maxCorrectResponses2004(type)
  if (max !== undefined && count > max) return conflict
  const patterns: string[] = []
  for (let i = 0; i < count; i++) {
    const p = ctx.get(`${item}.correct_responses.${i}.pattern`) ?? ''
    if (checkPattern2004(type, p) || patterns.some((q) => samePattern2004(type, p, q))) {
      return conflict
    }
    patterns.push(p)
  }
  return undefined
}

function patternCheck(value: string, ctx: ElementContext): Failure | undefined {
  const type = interactionType(ctx) ?? ''
  const f = checkPattern2004(type, value)
  if (f) return f
  const item = ctx.itemPath(0)
  const own = ctx.indices[1]
  for (let i = 0; i < ctx.count(`${item}.correct_responses`); i++) {
    const other = ctx.get(`${item}.correct_responses.${i}.pattern`)
    if (i !== own && other !== undefined && samePattern2004(type, value, other)) {
      return fail('set-failure', `correct_responses.${i} already holds this pattern`)
    }
  }
  return undefined
}

const sharedAccess = (ctx: ElementContext) => ctx.env.sharedData[ctx.indices[0] ?? -1]

const requestValid =
  (request: 'continue' | 'previous' | 'choice' | 'jump') => (_: unknown, ctx: ElementContext) =>
    ctx.env.navigation?.requestValid(request, ctx.target) ?? 'unknown'

export const ELEMENTS_2004: ElementTable = {
  cmi: group(),
  'cmi._version': leaf('ro', { initial: '1.0' }),

  'cmi.comments_from_learner': collection('location,comment,timestamp', {
    anyLeafCreates: true,
    maxItems: () => SPM.commentsFromLearner,
  }),
  'cmi.comments_from_learner.n.comment': leaf('rw', { check: localized(SPM.comment) }),
  'cmi.comments_from_learner.n.location': leaf('rw', {
    check: characterString(SPM.commentLocation),
  }),
  'cmi.comments_from_learner.n.timestamp': leaf('rw', { check: timestamp }),

  'cmi.comments_from_lms': collection('comment,timestamp,location', { fixed: true }),
  'cmi.comments_from_lms.n.comment': leaf('ro'),
  'cmi.comments_from_lms.n.location': leaf('ro'),
  'cmi.comments_from_lms.n.timestamp': leaf('ro'),

  'cmi.completion_status': leaf('rw', {
    check: vocabulary(COMPLETION),
    read: (stored, ctx) =>
      evaluateCompletionStatus(
        stored,
        ctx.get('cmi.progress_measure'),
        ctx.get('cmi.completion_threshold'),
      ),
  }),
  'cmi.completion_threshold': leaf('ro'),
  'cmi.credit': leaf('ro', { initial: 'credit' }),
  'cmi.entry': leaf('ro', { initial: 'ab-initio' }),
  'cmi.exit': leaf('wo', { check: vocabulary(['time-out', 'suspend', 'logout', 'normal', '']) }),

  'cmi.interactions': collection(
    'description,id,type,objectives,timestamp,result,learner_response,weighting,latency,correct_responses',
    { maxItems: () => SPM.interactions },
  ),
  'cmi.interactions.n.id': leaf('rw', { check: longIdentifier, creates: true }),
  'cmi.interactions.n.type': leaf('rw', {
    check: (v, ctx) => vocabulary(INTERACTION_TYPES_2004)(v) ?? typeFitsExistingResponses(v, ctx),
  }),
  'cmi.interactions.n.objectives': collection('id', {
    maxItems: () => SPM.interactionObjectives,
  }),
  'cmi.interactions.n.objectives.n.id': leaf('rw', {
    check: longIdentifier,
    creates: true,
    unique: true,
  }),
  'cmi.interactions.n.timestamp': leaf('rw', { check: timestamp }),
  'cmi.interactions.n.correct_responses': collection('pattern', {
    maxItems: (ctx) => maxCorrectResponses2004(interactionType(ctx) ?? ''),
  }),
  'cmi.interactions.n.correct_responses.n.pattern': leaf('rw', {
    creates: true,
    requires: needsType,
    check: patternCheck,
  }),
  'cmi.interactions.n.weighting': leaf('rw', { check: anyReal }),
  'cmi.interactions.n.learner_response': leaf('rw', {
    requires: needsType,
    check: (v, ctx) => checkLearnerResponse2004(interactionType(ctx) ?? '', v),
  }),
  'cmi.interactions.n.result': leaf('rw', {
    check: (v) => (RESULT_WORDS(v) ? anyReal(v) : undefined),
  }),
  'cmi.interactions.n.latency': leaf('rw', { check: timeInterval }),
  'cmi.interactions.n.description': leaf('rw', { check: localized(SPM.description) }),

  'cmi.launch_data': leaf('ro'),
  'cmi.learner_id': leaf('ro'),
  'cmi.learner_name': leaf('ro'),
  'cmi.learner_preference': group('language,delivery_speed,audio_captioning,audio_level'),
  'cmi.learner_preference.audio_level': leaf('rw', { check: real(0), initial: '1' }),
  'cmi.learner_preference.language': leaf('rw', { check: language(true), initial: '' }),
  'cmi.learner_preference.delivery_speed': leaf('rw', { check: real(0), initial: '1' }),
  'cmi.learner_preference.audio_captioning': leaf('rw', {
    check: vocabulary(['-1', '0', '1']),
    initial: '0',
  }),
  'cmi.location': leaf('rw', { check: characterString(SPM.location) }),
  'cmi.max_time_allowed': leaf('ro'),
  'cmi.mode': leaf('ro', { initial: 'normal' }),

  'cmi.objectives': collection(
    'success_status,progress_measure,description,id,completion_status,score',
    { maxItems: () => SPM.objectives },
  ),
  'cmi.objectives.n.id': leaf('rw', {
    check: longIdentifier,
    creates: true,
    unique: true,
    writeOnce: true,
  }),
  'cmi.objectives.n.score': group('min,max,scaled,raw'),
  'cmi.objectives.n.score.scaled': leaf('rw', { check: scaled }),
  'cmi.objectives.n.score.raw': leaf('rw', { check: anyReal }),
  'cmi.objectives.n.score.min': leaf('rw', { check: anyReal }),
  'cmi.objectives.n.score.max': leaf('rw', { check: anyReal }),
  'cmi.objectives.n.success_status': leaf('rw', { check: vocabulary(SUCCESS), initial: 'unknown' }),
  'cmi.objectives.n.completion_status': leaf('rw', {
    check: vocabulary(COMPLETION),
    initial: 'unknown',
  }),
  'cmi.objectives.n.progress_measure': leaf('rw', { check: unitInterval }),
  'cmi.objectives.n.description': leaf('rw', { check: localized(SPM.description) }),

  'cmi.progress_measure': leaf('rw', { check: unitInterval }),
  'cmi.scaled_passing_score': leaf('ro'),
  'cmi.score': group('min,max,scaled,raw'),
  'cmi.score.scaled': leaf('rw', { check: scaled }),
  'cmi.score.raw': leaf('rw', { check: anyReal }),
  'cmi.score.min': leaf('rw', { check: anyReal }),
  'cmi.score.max': leaf('rw', { check: anyReal }),
  'cmi.session_time': leaf('wo', { check: timeInterval }),
  'cmi.success_status': leaf('rw', {
    check: vocabulary(SUCCESS),
    read: (stored, ctx) =>
      evaluateSuccessStatus(
        stored,
        ctx.get('cmi.score.scaled'),
        ctx.get('cmi.scaled_passing_score'),
      ),
  }),
  'cmi.suspend_data': leaf('rw', {
    check: (v, ctx) => characterString(ctx.env.options.suspendDataLimit2004)(v),
  }),
  'cmi.time_limit_action': leaf('ro', { initial: 'continue,no message' }),
  'cmi.total_time': leaf('ro', { initial: 'PT0H0M0S' }),

  adl: group(),
  'adl.nav': group(),
  'adl.nav.request': leaf('rw', {
    initial: '_none_',
    check: (v) =>
      NAV_REQUEST.test(v) ? undefined : fail('type-mismatch', `"${v}" is not a navigation request`),
  }),
  'adl.nav.request_valid': group(),
  'adl.nav.request_valid.continue': leaf('ro', { read: requestValid('continue') }),
  'adl.nav.request_valid.previous': leaf('ro', { read: requestValid('previous') }),
  'adl.nav.request_valid.choice': group(),
  'adl.nav.request_valid.choice.{target}': leaf('ro', { read: requestValid('choice') }),
  'adl.nav.request_valid.jump': group(),
  'adl.nav.request_valid.jump.{target}': leaf('ro', { read: requestValid('jump') }),

  'adl.data': collection('id,store', { fixed: true }),
  'adl.data.n.id': leaf('ro'),
  'adl.data.n.store': leaf('rw', {
    check: characterString(64000),
    writable: (ctx) =>
      sharedAccess(ctx)?.writable === false
        ? fail('read-only', 'this SCO may not write this shared data (writeSharedData=false)')
        : undefined,
    // An empty store reads as never written, as ADL's conformance suite expects.
    read: (stored, ctx) =>
      sharedAccess(ctx)?.readable === false
        ? fail('write-only', 'this SCO may not read this shared data (readSharedData=false)')
        : stored === ''
          ? undefined
          : stored,
  }),
}
