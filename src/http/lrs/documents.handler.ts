import { agentKey, parseAgentParam } from '../../modules/lrs/agent.validator.ts'
import type { DocumentKey, DocumentService } from '../../modules/lrs/document.service.ts'
import type { StatementService } from '../../modules/lrs/statement.service.ts'
import {
  invalid,
  isIri,
  isUuid,
  type JsonObject,
  parseTimestamp,
  type XapiVersion,
} from '../../modules/lrs/xapi-primitives.ts'
import type { TenantScope } from '../../modules/tenants/tenant-scope.ts'
import { AppError } from '../../shared/app-error.ts'
import type { XapiRequest } from './xapi-request.ts'
import { httpDate, json, noContent, type XapiResponse } from './xapi-response.ts'

interface ResourceShape {
  kind: DocumentKey['kind']
  idParam: 'stateId' | 'profileId'
  params: string[]
}

const SHAPES: Record<string, ResourceShape> = {
  'activities/state': {
    kind: 'state',
    idParam: 'stateId',
    params: ['activityId', 'agent', 'registration', 'stateId', 'since'],
  },
  'activities/profile': {
    kind: 'activity_profile',
    idParam: 'profileId',
    params: ['activityId', 'profileId', 'since'],
  },
  'agents/profile': {
    kind: 'agent_profile',
    idParam: 'profileId',
    params: ['agent', 'profileId', 'since'],
  },
}

export function isDocumentResource(resource: string): boolean {
  return resource in SHAPES
}

function keyOf(shape: ResourceShape, params: Record<string, string>): DocumentKey {
  for (const name of Object.keys(params)) {
    if (!shape.params.includes(name)) invalid(name, 'is not a parameter of this resource')
  }
  let activityId = ''
  let agent = ''
  if (shape.params.includes('activityId')) {
    if (!isIri(params.activityId)) invalid('activityId', 'is required and must be an IRI')
    activityId = params.activityId
  }
  if (shape.params.includes('agent')) {
    agent = agentKey(parseAgentParam(params.agent, 'agent')) as string
  }
  let registration: string | undefined
  if (params.registration !== undefined) {
    if (!isUuid(params.registration)) invalid('registration', 'must be a UUID')
    registration = params.registration.toLowerCase()
  }
  return { kind: shape.kind, activityId, agentKey: agent, registration }
}

function documentBody(req: XapiRequest) {
  return {
    contentType: req.headers.contentType ?? 'application/octet-stream',
    content: req.body,
  }
}

/** State, activity profile and agent profile resources. */
export async function documentsHandler(
  docs: DocumentService,
  scope: TenantScope,
  req: XapiRequest,
  version: XapiVersion,
): Promise<XapiResponse> {
  const shape = SHAPES[req.resource] as ResourceShape
  const key = keyOf(shape, req.params)
  const id = req.params[shape.idParam]
  const pre = { ifMatch: req.headers.ifMatch, ifNoneMatch: req.headers.ifNoneMatch }
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (id === undefined) {
      const since = req.params.since
      const sinceDate = since === undefined ? undefined : parseTimestamp(since, false)
      if (sinceDate === null) invalid('since', 'must be an ISO 8601 timestamp')
      return json(200, await docs.list(scope, key, sinceDate?.toISOString()))
    }
    if (req.params.since !== undefined) invalid('since', 'is only for listing ids')
    const doc = await docs.get(scope, key, id)
    if (!doc) throw new AppError('not_found', `No document ${id}`)
    return {
      status: 200,
      headers: {
        'content-type': doc.contentType,
        etag: `"${doc.etag}"`,
        'last-modified': httpDate(doc.updatedAt),
      },
      body: doc.content,
    }
  }
  if (req.method === 'DELETE') {
    if (id === undefined && shape.kind !== 'state') invalid(shape.idParam, 'is required')
    await docs.delete(scope, key, id, pre)
    return noContent()
  }
  if (id === undefined) invalid(shape.idParam, 'is required')
  if (req.params.since !== undefined) invalid('since', 'is only for listing ids')
  if (req.method === 'PUT') await docs.put(scope, key, id, documentBody(req), pre, version)
  else await docs.post(scope, key, id, documentBody(req), pre)
  return noContent()
}

/** GET /activities: the activity's canonical definition. */
export async function activitiesHandler(
  statements: StatementService,
  scope: TenantScope,
  req: XapiRequest,
): Promise<XapiResponse> {
  for (const name of Object.keys(req.params)) {
    if (name !== 'activityId') invalid(name, 'is not a parameter of this resource')
  }
  if (!isIri(req.params.activityId)) invalid('activityId', 'is required and must be an IRI')
  return json(200, await statements.activity(scope, req.params.activityId))
}

/** GET /agents: the Person object of an agent (what this LRS knows: the IFI and name given). */
export function agentsHandler(req: XapiRequest): XapiResponse {
  for (const name of Object.keys(req.params)) {
    if (name !== 'agent') invalid(name, 'is not a parameter of this resource')
  }
  const agent = parseAgentParam(req.params.agent, 'agent')
  if (agent.objectType === 'Group') invalid('agent', 'must be an Agent, not a Group')
  const person: JsonObject = { objectType: 'Person' }
  for (const key of ['name', 'mbox', 'mbox_sha1sum', 'openid', 'account']) {
    const value = agent[key]
    if (value !== undefined) person[key] = [value]
  }
  return json(200, person)
}
