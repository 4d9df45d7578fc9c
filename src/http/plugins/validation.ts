import ajvCompiler from '@fastify/ajv-compiler'
import type { FastifyServerOptions } from 'fastify'

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>
type ValidatorFactory = NonNullable<
  NonNullable<SchemaController['compilersFactory']>['buildValidator']
>
type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null }
type Compile = (route: { httpPart?: string }) => Validate
type AjvOptions = { customOptions: Record<string, unknown>; plugins?: unknown[] }
type BuildFromPool = (externalSchemas: unknown, options: AjvOptions) => Compile

// Fastify's own Ajv compiler (the version Fastify 5 uses), built twice with different options.
const buildAjvCompiler = ajvCompiler as unknown as () => BuildFromPool

const COMMON = { removeAdditional: false, strictTypes: false } as const

/** The first property holding Infinity or NaN, as a JSON pointer, or null. */
function nonFinite(data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'number' && !Number.isFinite(value)) return `/${key}`
  }
  return null
}

/**
 * Ajv coerces `limit=1e309` to Infinity and then lets it through `type: integer, maximum: 200`
 * (the bounds are checked against the text); no query value may be non-finite.
 */
function finite(validate: Validate): Validate {
  const check: Validate = (data) => {
    const ok = validate(data)
    check.errors = validate.errors
    const where = ok ? nonFinite(data) : null
    if (where === null) return ok
    check.errors = [
      {
        instancePath: where,
        schemaPath: '',
        keyword: 'finite',
        params: {},
        message: 'must be a finite number',
      },
    ]
    return false
  }
  return check
}

/**
 * Request validation with two Ajv instances: JSON bodies are checked exactly (`{"title": 1}` is
 * a 400 naming `/title`, never the string "1"), while the query string, path and headers, which
 * are text on the wire, keep Ajv's coercion of numbers, booleans and single values to arrays.
 */
export function requestValidation(): SchemaController {
  const fromPool = buildAjvCompiler()
  const buildValidator = (externalSchemas: unknown, options?: Partial<AjvOptions>): Compile => {
    const plugins = options?.plugins ?? []
    const exact = fromPool(externalSchemas, {
      customOptions: { ...COMMON, coerceTypes: false },
      plugins,
    })
    const coercing = fromPool(externalSchemas, {
      customOptions: { ...COMMON, coerceTypes: 'array' },
      plugins,
    })
    return (route) => (route.httpPart === 'body' ? exact(route) : finite(coercing(route)))
  }
  // Fastify types the factory as a union of Ajv and JTD builders; this is the Ajv one.
  return { compilersFactory: { buildValidator: buildValidator as unknown as ValidatorFactory } }
}
