/**
 * SCORM 1.2 `adlcp:prerequisites` (type `aicc_script`, CAM 1.2 §2.3.5 after AICC CMI001): whether
 * an item may be entered, from the lesson status of the other items. Pure code, run by the
 * player to enable contents entries and Continue, and available to the server.
 *
 * Grammar, loosest binding first (`&` over `|`, as AICC's examples and common LMSs read it):
 *
 *     or      := and ('|' and)*
 *     and     := unary ('&' unary)*
 *     unary   := '~' unary | primary
 *     primary := '(' or ')' | N '*' '{' or (',' or)* '}' | id [('=' | '<>') status]
 *
 * A bare identifier holds when that item is passed or completed (AICC: `~A35` is
 * `A35<>passed & A35<>completed`); `N*{a,b,c}` holds when at least N members hold; a status is
 * one of passed, completed, failed, incomplete, browsed, not attempted, or its first letter.
 */

export type LessonStatus =
  | 'passed'
  | 'completed'
  | 'failed'
  | 'incomplete'
  | 'browsed'
  | 'not attempted'

export type PrerequisiteExpr =
  | { readonly kind: 'item'; readonly id: string }
  | {
      readonly kind: 'compare'
      readonly id: string
      readonly equal: boolean
      readonly status: LessonStatus
    }
  | { readonly kind: 'not'; readonly operand: PrerequisiteExpr }
  | { readonly kind: 'and' | 'or'; readonly operands: readonly PrerequisiteExpr[] }
  | {
      readonly kind: 'atLeast'
      readonly count: number
      readonly members: readonly PrerequisiteExpr[]
    }

export type ParseResult =
  | { readonly ok: true; readonly expr: PrerequisiteExpr }
  | { readonly ok: false; readonly error: string }

/** Longest script parsed; a manifest can hold anything, the player must stay responsive. */
const MAX_SCRIPT_LENGTH = 4096
const MAX_DEPTH = 64

const STATUS_WORDS: ReadonlyArray<readonly [RegExp, LessonStatus]> = [
  [/^not\s+attempted\b/i, 'not attempted'],
  [/^passed\b/i, 'passed'],
  [/^completed\b/i, 'completed'],
  [/^failed\b/i, 'failed'],
  [/^incomplete\b/i, 'incomplete'],
  [/^browsed\b/i, 'browsed'],
  [/^p\b/i, 'passed'],
  [/^c\b/i, 'completed'],
  [/^f\b/i, 'failed'],
  [/^i\b/i, 'incomplete'],
  [/^b\b/i, 'browsed'],
  [/^n\b/i, 'not attempted'],
]

/** Item identifiers (xs:ID in the manifest, tolerantly: letters, digits, _ - . :). */
const IDENT = /^[A-Za-z0-9_.:-]+/

// Long on purpose: a recursive-descent parser: its parse functions share the cursor in one closure.
export function parsePrerequisites(script: string): ParseResult {
  if (script.length > MAX_SCRIPT_LENGTH) return { ok: false, error: 'script too long' }
  let pos = 0
  let depth = 0
  const src = script

  const skip = () => {
    while (pos < src.length && /\s/.test(src[pos] as string)) pos++
  }
  const peek = () => {
    skip()
    return src[pos]
  }
  const expect = (ch: string) => {
    if (peek() !== ch) throw new SyntaxError(`expected '${ch}' at ${pos}`)
    pos++
  }

  const parseOr = (): PrerequisiteExpr => {
    if (++depth > MAX_DEPTH) throw new SyntaxError('nested too deeply')
    const operands = [parseAnd()]
    while (peek() === '|') {
      pos++
      operands.push(parseAnd())
    }
    depth--
    return operands.length === 1 ? (operands[0] as PrerequisiteExpr) : { kind: 'or', operands }
  }
  const parseAnd = (): PrerequisiteExpr => {
    const operands = [parseUnary()]
    while (peek() === '&') {
      pos++
      operands.push(parseUnary())
    }
    return operands.length === 1 ? (operands[0] as PrerequisiteExpr) : { kind: 'and', operands }
  }
  const parseUnary = (): PrerequisiteExpr => {
    if (peek() === '~') {
      pos++
      if (++depth > MAX_DEPTH) throw new SyntaxError('nested too deeply')
      const operand = parseUnary()
      depth--
      return { kind: 'not', operand }
    }
    return parsePrimary()
  }
  const parsePrimary = (): PrerequisiteExpr => {
    const ch = peek()
    if (ch === '(') {
      pos++
      const inner = parseOr()
      expect(')')
      return inner
    }
    const count = /^(\d+)\s*\*/.exec(src.slice(pos))
    if (count) {
      pos += count[0].length
      expect('{')
      const members = [parseOr()]
      while (peek() === ',') {
        pos++
        members.push(parseOr())
      }
      expect('}')
      return { kind: 'atLeast', count: Number(count[1]), members }
    }
    const id = IDENT.exec(src.slice(pos))?.[0]
    if (!id) throw new SyntaxError(`expected an item identifier at ${pos}`)
    pos += id.length
    skip()
    const op = src.startsWith('<>', pos) ? '<>' : src[pos] === '=' ? '=' : undefined
    if (!op) return { kind: 'item', id }
    pos += op.length
    skip()
    for (const [word, status] of STATUS_WORDS) {
      const m = word.exec(src.slice(pos))
      if (m) {
        pos += m[0].length
        return { kind: 'compare', id, equal: op === '=', status }
      }
    }
    throw new SyntaxError(`expected a lesson status at ${pos}`)
  }

  try {
    if (src.trim() === '') return { ok: false, error: 'empty script' }
    const expr = parseOr()
    if (peek() !== undefined) throw new SyntaxError(`unexpected '${src[pos]}' at ${pos}`)
    return { ok: true, expr }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) }
  }
}

/** Status of an item by identifier; undefined for an identifier the course does not have. */
export type StatusOf = (id: string) => LessonStatus | undefined

export function evaluateExpr(expr: PrerequisiteExpr, statusOf: StatusOf): boolean {
  switch (expr.kind) {
    case 'item': {
      const s = statusOf(expr.id) ?? 'not attempted'
      return s === 'passed' || s === 'completed'
    }
    case 'compare':
      return ((statusOf(expr.id) ?? 'not attempted') === expr.status) === expr.equal
    case 'not':
      return !evaluateExpr(expr.operand, statusOf)
    case 'and':
      return expr.operands.every((o) => evaluateExpr(o, statusOf))
    case 'or':
      return expr.operands.some((o) => evaluateExpr(o, statusOf))
    case 'atLeast':
      return expr.members.filter((m) => evaluateExpr(m, statusOf)).length >= expr.count
  }
}

/** Identifiers an expression names, to check them against the course's items. */
export function referencedItems(expr: PrerequisiteExpr): string[] {
  switch (expr.kind) {
    case 'item':
    case 'compare':
      return [expr.id]
    case 'not':
      return referencedItems(expr.operand)
    case 'and':
    case 'or':
      return expr.operands.flatMap(referencedItems)
    case 'atLeast':
      return expr.members.flatMap(referencedItems)
  }
}

export type PrerequisitesVerdict =
  | { readonly met: boolean }
  /** The script cannot be used (syntax, unknown item): never lock the learner out over it. */
  | { readonly met: true; readonly problem: string }

/**
 * Whether the prerequisites of an item are met. No script, or a script that cannot be parsed or
 * names an item the course does not have, counts as met (with `problem` set): a broken manifest
 * must not make part of a course unreachable.
 */
export function prerequisitesMet(
  script: string | null | undefined,
  statusOf: StatusOf,
): PrerequisitesVerdict {
  if (script == null || script.trim() === '') return { met: true }
  const parsed = parsePrerequisites(script)
  if (!parsed.ok) return { met: true, problem: parsed.error }
  const unknown = referencedItems(parsed.expr).find((id) => statusOf(id) === undefined)
  if (unknown !== undefined) return { met: true, problem: `no item ${unknown} in this course` }
  return { met: evaluateExpr(parsed.expr, statusOf) }
}

/**
 * The 1.2 lesson status a prerequisite compares, from the completion/success pair the server
 * stores (session-status.ts maps the other way; browsed is stored as incomplete).
 */
export function lessonStatusOf(
  completion: string | undefined,
  success: string | undefined,
): LessonStatus {
  if (success === 'passed') return 'passed'
  if (success === 'failed') return 'failed'
  if (completion === 'completed') return 'completed'
  if (completion === 'incomplete') return 'incomplete'
  if (completion === 'browsed') return 'browsed'
  return 'not attempted'
}
