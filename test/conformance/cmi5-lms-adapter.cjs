'use strict'
// Courseport's LMS adapter for the cmi5 LMS Test Suite (CATAPULT LTS): each function of the
// suite's interface (lib/lms.template.js) done through Courseport's own HTTP API. Configured by
// COURSEPORT_API_URL, COURSEPORT_API_KEY, COURSEPORT_LRS_KEY and COURSEPORT_LRS_SECRET.
// Jest 27 runs this file: no `node:` specifiers, and no fetch or FormData in its sandbox.
// biome-ignore lint/style/useNodejsImportProtocol: Jest 27 cannot resolve node: specifiers
const http = require('http')
// biome-ignore lint/style/useNodejsImportProtocol: Jest 27 cannot resolve node: specifiers
const path = require('path')
const yazl = require('yazl')
const { InvalidPackageError } = require(path.resolve('lib/errors.js'))

const env = (name) => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}

/** One API request; `body` is JSON, or `{ file, name }` for a multipart upload. */
function api(method, url, body) {
  const headers = { authorization: `Bearer ${env('COURSEPORT_API_KEY')}` }
  let payload = Buffer.alloc(0)
  if (body && Buffer.isBuffer(body.file)) {
    const boundary = `----courseport${Date.now()}`
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`
    payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${body.name}"\r\n` +
          'Content-Type: application/zip\r\n\r\n',
      ),
      body.file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ])
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = Buffer.from(JSON.stringify(body))
  }
  headers['content-length'] = String(payload.length)
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${env('COURSEPORT_API_URL')}/api/v1${url}`,
      { method, headers },
      (response) => {
        readAll(response).then((buffer) => {
          const text = buffer.toString('utf8')
          resolve({ status: response.statusCode, body: text ? JSON.parse(text) : null })
        }, reject)
      },
    )
    request.once('error', reject)
    request.end(payload)
  })
}

async function readAll(stream) {
  const chunks = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** A bare cmi5.xml (a course of external AUs) is uploaded as a zip holding just that file. */
function zipOf(xml) {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile()
    zip.addBuffer(xml, 'cmi5.xml')
    zip.end()
    readAll(zip.outputStream).then(resolve, reject)
  })
}

module.exports = {
  setup: async () => {},
  teardown: async () => {},
  getLrsEndpoint: () => `${env('COURSEPORT_API_URL')}/xapi`,
  getLrsAuthHeader: () =>
    `Basic ${Buffer.from(`${env('COURSEPORT_LRS_KEY')}:${env('COURSEPORT_LRS_SECRET')}`).toString('base64')}`,

  importCourse: async (stream, contentType, filename) => {
    const bytes = await readAll(stream)
    const zip = contentType === 'text/xml' ? await zipOf(bytes) : bytes
    const name = filename.endsWith('.zip') ? filename : `${filename}.zip`
    const { status, body } = await api('POST', '/packages/upload', { file: zip, name })
    if (status === 201) return body.package.id
    if (status >= 400 && status < 500) {
      throw new InvalidPackageError(`${filename}: ${body?.error?.message ?? status}`)
    }
    throw new Error(`Upload of ${filename} answered ${status}: ${JSON.stringify(body)}`)
  },

  getLaunchUrl: async (courseId, auIndex, actor, { registration, launchMode } = {}) => {
    const { status, body } = await api('POST', `/packages/${courseId}/cmi5/launch`, {
      user_id: actor.account?.name ?? 'learner',
      actor,
      au_index: auIndex,
      ...(registration && { registration }),
      ...(launchMode && { launch_mode: launchMode }),
    })
    if (status !== 200) throw new Error(`Launch answered ${status}: ${JSON.stringify(body)}`)
    return body.launch_url
  },

  cleanup: async () => {},

  hasWaive: () => true,
  waiveAU: async (registration, auIndex, reason) => {
    const { status, body } = await api('POST', `/cmi5/registrations/${registration}/waive`, {
      au_index: auIndex,
      reason,
    })
    if (status !== 204) throw new Error(`Waive answered ${status}: ${JSON.stringify(body)}`)
  },

  hasAbandon: () => true,
  abandonSession: async (sessionId) => {
    const { status, body } = await api('POST', `/cmi5/sessions/${sessionId}/abandon`)
    if (status !== 204) throw new Error(`Abandon answered ${status}: ${JSON.stringify(body)}`)
  },
}
