/**
 * SCORM 1.2 run-time data model (RTE 3.4). Unset values read as "" (1.2 has no "not initialized"
 * error); array items are created by writing any of their elements at index `_count`.
 */
import { collection, type ElementContext, type ElementTable, group, leaf } from './element-spec.ts'
import { type Failure, fail } from './errors.ts'
import { checkFeedback12, INTERACTION_TYPES_12 } from './interaction-responses.ts'
import {
  type Check,
  characterString,
  cmiIdentifier,
  cmiTime,
  integer,
  real,
  timespan,
  vocabulary,
} from './value-types.ts'

const STATUS = ['passed', 'completed', 'failed', 'incomplete', 'browsed', 'not attempted'] as const
// A SCO may not set "not attempted" on itself (RTE 3.4.4.3).
const SETTABLE_LESSON_STATUS = STATUS.filter((s) => s !== 'not attempted')

/** CMIDecimal 0-100 or CMIBlank, the type of every 1.2 score. */
const score: Check = (v) => (v === '' ? undefined : real(0, 100)(v))
const decimal = real()
const RESULT_WORDS = vocabulary(['correct', 'wrong', 'unanticipated', 'neutral'])

const feedback = (v: string, ctx: ElementContext) =>
  checkFeedback12(ctx.get(`${ctx.itemPath(0)}.type`) ?? '', v)

/** Changing the type must keep the stored responses valid, so state never holds bad data. */
function typeFitsResponses(type: string, ctx: ElementContext): Failure | undefined {
  const item = ctx.itemPath(0)
  const stored = [ctx.get(`${item}.student_response`)]
  for (let i = 0; i < ctx.count(`${item}.correct_responses`); i++) {
    stored.push(ctx.get(`${item}.correct_responses.${i}.pattern`))
  }
  return stored.some((v) => v !== undefined && checkFeedback12(type, v))
    ? fail('type-mismatch', `stored responses do not fit interaction type ${type}`)
    : undefined
}

export const ELEMENTS_12: ElementTable = {
  cmi: group(),
  'cmi._version': leaf('ro', { initial: '3.4' }),

  'cmi.core': group(
    'student_id,student_name,lesson_location,credit,lesson_status,entry,score,total_time,lesson_mode,exit,session_time',
  ),
  'cmi.core.student_id': leaf('ro'),
  'cmi.core.student_name': leaf('ro'),
  'cmi.core.lesson_location': leaf('rw', { check: characterString(255) }),
  'cmi.core.credit': leaf('ro', { initial: 'credit' }),
  'cmi.core.lesson_status': leaf('rw', {
    check: vocabulary(SETTABLE_LESSON_STATUS),
    initial: 'not attempted',
  }),
  'cmi.core.entry': leaf('ro', { initial: 'ab-initio' }),
  'cmi.core.score': group('raw,min,max'),
  'cmi.core.score.raw': leaf('rw', { check: score }),
  'cmi.core.score.min': leaf('rw', { check: score }),
  'cmi.core.score.max': leaf('rw', { check: score }),
  'cmi.core.total_time': leaf('ro', { initial: '0000:00:00.00' }),
  'cmi.core.lesson_mode': leaf('ro', { initial: 'normal' }),
  'cmi.core.exit': leaf('wo', { check: vocabulary(['time-out', 'suspend', 'logout', '']) }),
  'cmi.core.session_time': leaf('wo', { check: timespan }),

  'cmi.suspend_data': leaf('rw', {
    check: (v, ctx) => characterString(ctx.env.options.suspendDataLimit12)(v),
  }),
  'cmi.launch_data': leaf('ro'),
  'cmi.comments': leaf('rw', { check: characterString(4096) }),
  'cmi.comments_from_lms': leaf('ro'),

  'cmi.objectives': collection('id,score,status', { anyLeafCreates: true }),
  'cmi.objectives.n.id': leaf('rw', { check: cmiIdentifier }),
  'cmi.objectives.n.score': group('raw,min,max'),
  'cmi.objectives.n.score.raw': leaf('rw', { check: score }),
  'cmi.objectives.n.score.min': leaf('rw', { check: score }),
  'cmi.objectives.n.score.max': leaf('rw', { check: score }),
  'cmi.objectives.n.status': leaf('rw', { check: vocabulary(STATUS), initial: 'not attempted' }),

  'cmi.student_data': group('mastery_score,max_time_allowed,time_limit_action'),
  'cmi.student_data.mastery_score': leaf('ro'),
  'cmi.student_data.max_time_allowed': leaf('ro'),
  'cmi.student_data.time_limit_action': leaf('ro'),

  'cmi.student_preference': group('audio,language,speed,text'),
  'cmi.student_preference.audio': leaf('rw', { check: integer(-1, 100), initial: '0' }),
  'cmi.student_preference.language': leaf('rw', { check: characterString(255) }),
  'cmi.student_preference.speed': leaf('rw', { check: integer(-100, 100), initial: '0' }),
  'cmi.student_preference.text': leaf('rw', { check: integer(-1, 1), initial: '0' }),

  'cmi.interactions': collection(
    'id,objectives,time,type,correct_responses,weighting,student_response,result,latency',
    { anyLeafCreates: true },
  ),
  'cmi.interactions.n.id': leaf('wo', { check: cmiIdentifier }),
  'cmi.interactions.n.objectives': collection('id', { anyLeafCreates: true }),
  'cmi.interactions.n.objectives.n.id': leaf('wo', { check: cmiIdentifier }),
  'cmi.interactions.n.time': leaf('wo', { check: cmiTime }),
  'cmi.interactions.n.type': leaf('wo', {
    check: (v, ctx) => vocabulary(INTERACTION_TYPES_12)(v) ?? typeFitsResponses(v, ctx),
  }),
  'cmi.interactions.n.correct_responses': collection('pattern', { anyLeafCreates: true }),
  'cmi.interactions.n.correct_responses.n.pattern': leaf('wo', { check: feedback }),
  'cmi.interactions.n.weighting': leaf('wo', { check: decimal }),
  'cmi.interactions.n.student_response': leaf('wo', { check: feedback }),
  'cmi.interactions.n.result': leaf('wo', {
    check: (v) => (RESULT_WORDS(v) ? decimal(v) : undefined),
  }),
  'cmi.interactions.n.latency': leaf('wo', { check: timespan }),
}
