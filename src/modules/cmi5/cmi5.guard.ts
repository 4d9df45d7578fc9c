import type { Cmi5LaunchesTable } from '../../infra/db/tables/cmi5.ts'
import { AppError } from '../../shared/app-error.ts'
import { isoNow } from '../../shared/clock.ts'
import { agentKey } from '../lrs/agent.validator.ts'
import type { LrsCredential } from '../lrs/credential.service.ts'
import type { GuardedRequest, LrsLaunchGuard } from '../lrs/launch-guard.ts'
import { isObject, type JsonObject } from '../lrs/xapi-primitives.ts'
import * as repo from './cmi5.repository.ts'
import {
  AU_VERBS,
  LAUNCH_DATA_STATE_ID,
  LEARNER_PREFERENCES_PROFILE_ID,
  VERB,
} from './cmi5.vocabulary.ts'
import type { StructureLoader } from './lms-actions.service.ts'
import { emptyProgress, type RegistrationState } from './move-on.ts'
import type { Cmi5Registrations } from './registration.service.ts'
import { checkAuStatement, type LaunchFacts, progressAfter } from './statement-rules.ts'
import type { TinCanService } from './tincan.service.ts'

const LANGUAGES = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*(,[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*)*$/

function refuse(reason: string): never {
  throw new AppError('forbidden', `cmi5: ${reason}`)
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
}

/** §11: the learner preferences an AU may write are the spec's two, well formed. */
function checkPreferences(req: GuardedRequest) {
  if (!/^application\/json/i.test(req.contentType ?? '')) refuse('11.0.0.0-5: preferences are JSON')
  const body = parseJson(req.body)
  if (!isObject(body)) refuse('11.0.0.0-5: preferences are a JSON object')
  const { languagePreference: lang, audioPreference: audio } = body
  if (typeof lang !== 'string' || typeof audio !== 'string') {
    refuse('11.0.0.0-5: languagePreference and audioPreference are required')
  }
  if (!LANGUAGES.test(lang)) refuse('11.1.0.0-1: languagePreference is a list of language codes')
  if (audio !== 'on' && audio !== 'off') refuse('11.2.0.0-1: audioPreference is on or off')
}

function sameActor(raw: string | undefined, actor: JsonObject): boolean {
  const given = raw === undefined ? undefined : parseJson(Buffer.from(raw))
  return isObject(given) && agentKey(given) !== null && agentKey(given) === agentKey(actor)
}

/**
 * A launch credential reads only its learner's data: statements of its registration or its
 * actor, state and agent profiles of its actor (a course runs in the learner's browser, so its
 * credential must not open the tenant's other learners' records).
 */
function ownDataOnly(
  req: GuardedRequest,
  writing: boolean,
  actor: JsonObject,
  registration: string,
) {
  const personal = req.resource === 'activities/state' || req.resource === 'agents/profile'
  if (personal && req.params.agent !== undefined && !sameActor(req.params.agent, actor)) {
    refuse("a launch credential reaches only its learner's documents")
  }
  if (req.resource !== 'statements' || writing) return
  const own =
    req.params.registration?.toLowerCase() === registration ||
    (req.params.agent !== undefined && sameActor(req.params.agent, actor))
  if (!own) refuse("a launch credential reads only its registration's or learner's statements")
}

/**
 * The LRS's cmi5 rules (LrsLaunchGuard) for requests made with an AU's credential, and the LMS's
 * reaction to what the AU stored: session state, moveOn, `satisfied`, the session's status.
 */
export class Cmi5Guard implements LrsLaunchGuard {
  readonly #registrations: Cmi5Registrations
  readonly #tincan: TinCanService
  readonly #structureOf: StructureLoader
  constructor(
    registrations: Cmi5Registrations,
    tincan: TinCanService,
    structureOf: StructureLoader,
  ) {
    this.#registrations = registrations
    this.#tincan = tincan
    this.#structureOf = structureOf
  }

  async #context(credential: LrsCredential) {
    const { db } = this.#registrations.deps
    const launch = credential.launchId
      ? await repo.findLaunch(db, credential, credential.launchId)
      : undefined
    if (!launch) throw new AppError('unauthorized', 'The launch of this credential is unknown')
    const reg = await repo.findRegistration(db, credential, launch.registration_id)
    if (!reg) throw new AppError('unauthorized', 'The registration of this credential is unknown')
    return { launch, reg }
  }

  #facts(launch: Cmi5LaunchesTable, state: RegistrationState, actor: JsonObject) {
    return {
      actor,
      registration: launch.registration_id,
      activityId: launch.activity_id,
      sessionId: launch.id,
      launchMode: launch.launch_mode,
      status: launch.status,
      preferencesRead: launch.preferences_read === 1,
      sessionVerbs: JSON.parse(launch.verbs) as string[],
      progress: state.aus[String(launch.au_index)] ?? emptyProgress(),
    }
  }

  async check(credential: LrsCredential, req: GuardedRequest): Promise<void> {
    const { launch, reg } = await this.#context(credential)
    const actor = JSON.parse(reg.actor) as JsonObject
    const writing = req.method !== 'GET' && req.method !== 'HEAD'
    ownDataOnly(req, writing, actor, reg.id)
    if (launch.kind === 'tincan') return
    if (
      req.resource === 'agents/profile' &&
      !writing &&
      req.params.profileId === LEARNER_PREFERENCES_PROFILE_ID &&
      launch.preferences_read === 0
    ) {
      const at = isoNow(this.#registrations.deps.clock)
      await repo.updateLaunch(this.#registrations.deps.db, credential, launch.id, {
        preferences_read: 1,
        updated_at: at,
      })
    }
    if (req.resource === 'activities/state' && writing) {
      if (req.params.stateId === LAUNCH_DATA_STATE_ID || req.params.stateId === undefined) {
        refuse('10.2.1.0-5: LMS.LaunchData is written by the LMS only')
      }
    }
    if (req.resource === 'agents/profile' && writing && req.params.agent !== undefined) {
      if (!sameActor(req.params.agent, actor)) refuse("11.0.0.0-1: only the learner's own profile")
      if (req.params.profileId === LEARNER_PREFERENCES_PROFILE_ID && req.method !== 'DELETE') {
        checkPreferences(req)
      }
    }
    if (req.resource !== 'statements' || !writing) return
    const body = parseJson(req.body)
    if (body === undefined) return // not JSON: the LRS answers 400
    const list = (Array.isArray(body) ? body : [body]).filter(isObject)
    const versionId = reg.version_id
    const structure = await this.#structureOf(credential, versionId)
    const au = structure?.aus[launch.au_index]
    const state = JSON.parse(reg.state) as RegistrationState
    let facts: LaunchFacts = {
      ...this.#facts(launch, state, actor),
      masteryScore: au?.masteryScore ?? null,
    }
    for (const st of list) {
      const verdict = checkAuStatement(st, facts, req.method)
      if (verdict) refuse(verdict)
      const verb = isObject(st.verb) ? st.verb.id : undefined
      facts = {
        ...facts,
        status:
          verb === VERB.initialized
            ? 'initialized'
            : verb === VERB.terminated
              ? 'terminated'
              : facts.status,
        progress: progressAfter(facts.progress, st),
        sessionVerbs: typeof verb === 'string' ? [...facts.sessionVerbs, verb] : facts.sessionVerbs,
      }
    }
  }

  async stored(credential: LrsCredential, statements: JsonObject[]): Promise<void> {
    const { launch, reg } = await this.#context(credential)
    if (launch.kind === 'tincan') {
      await this.#tincan.stored(credential, launch, reg, statements)
      return
    }
    const structure = await this.#structureOf(credential, reg.version_id)
    if (!structure) return
    const { db, clock } = this.#registrations.deps
    let state = JSON.parse(reg.state) as RegistrationState
    const key = String(launch.au_index)
    const verbs = JSON.parse(launch.verbs) as string[]
    for (const st of statements) {
      const verb = isObject(st.verb) ? st.verb.id : undefined
      const at = isoNow(clock)
      if (typeof verb === 'string' && AU_VERBS.has(verb) && !verbs.includes(verb)) {
        verbs.push(verb)
        await repo.updateLaunch(db, credential, launch.id, {
          verbs: JSON.stringify(verbs),
          updated_at: at,
        })
      }
      if (verb === VERB.initialized) {
        await repo.updateLaunch(db, credential, launch.id, {
          status: 'initialized',
          updated_at: at,
        })
      } else if (verb === VERB.completed || verb === VERB.passed || verb === VERB.failed) {
        const before = state.aus[key] ?? emptyProgress()
        state = { ...state, aus: { ...state.aus, [key]: progressAfter(before, st) } }
        state = await this.#registrations.settle(credential, reg, structure, state, launch.id)
      } else if (verb === VERB.terminated) {
        await repo.updateLaunch(db, credential, launch.id, { status: 'terminated', updated_at: at })
        await this.#registrations.writer.lrs.credentials.revokeLaunch(credential, launch.id)
        const result = isObject(st.result) ? st.result : {}
        const duration = typeof result.duration === 'string' ? result.duration : null
        const ms = clock.now().getTime() - Date.parse(launch.launched_at)
        await this.#registrations.settle(credential, reg, structure, state, launch.id, {
          seconds: Math.round(ms / 1000),
          duration,
          suspended: false,
        })
      }
    }
  }
}
