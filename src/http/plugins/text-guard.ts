import type { FastifyInstance } from 'fastify'
import { AppError } from '../../shared/app-error.ts'

/** Parsed JSON, query strings and params only: never a raw body stream a route asked for. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value)
  // Fastify's params and query objects inherit from a prototype-less base object.
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null
}

/** Where in the request a NUL character was found, or null. Iterative: bodies may nest deeply. */
export function findNul(value: unknown, where: string): string | null {
  const stack: Array<[unknown, string]> = [[value, where]]
  while (stack.length) {
    const [item, path] = stack.pop() as [unknown, string]
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return path
    } else if (Array.isArray(item)) {
      item.forEach((v, i) => {
        stack.push([v, `${path}/${i}`])
      })
    } else if (isPlainObject(item)) {
      for (const [k, v] of Object.entries(item)) {
        if (k.includes('\u0000')) return path
        stack.push([v, `${path}/${k}`])
      }
    }
  }
  return null
}

/**
 * A NUL character in a path parameter, the query string or a JSON string is refused with 400:
 * PostgreSQL cannot store it in text (the query would fail: a 500), and no legitimate id, filter
 * or title contains one. API origin only: runtime commits
 * on the content origin may carry NULs in suspend data (some authoring tools compress it), and
 * what to do with those is the runtime's decision.
 */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const found =
      findNul(request.params, 'params') ??
      findNul(request.query, 'querystring') ??
      findNul(request.body, 'body')
    if (found) {
      throw new AppError('validation_failed', `${found} must not contain NUL characters`, [
        { path: found, message: 'must not contain NUL characters' },
      ])
    }
  })
}
