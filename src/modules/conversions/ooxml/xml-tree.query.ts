import type { XmlElement } from './xml.parser.ts'

export function elements(el: XmlElement): XmlElement[] {
  return el.children.filter((c): c is XmlElement => typeof c !== 'string')
}

export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!el) return undefined
  for (const c of el.children) if (typeof c !== 'string' && c.name === name) return c
  return undefined
}

export function childrenNamed(el: XmlElement | undefined, name: string): XmlElement[] {
  if (!el) return []
  return elements(el).filter((c) => c.name === name)
}

/** Follows a chain of child names: `path(sp, 'p:nvSpPr', 'p:nvPr', 'p:ph')`. */
export function path(el: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let cur = el
  for (const n of names) cur = child(cur, n)
  return cur
}

/** Every descendant (document order, iterative so deep trees cannot overflow the stack). */
export function* descendants(el: XmlElement): Generator<XmlElement> {
  const stack: XmlElement[] = [...elements(el)].reverse()
  while (stack.length > 0) {
    const cur = stack.pop() as XmlElement
    yield cur
    const kids = elements(cur)
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as XmlElement)
  }
}

export function descendantsNamed(el: XmlElement | undefined, name: string): XmlElement[] {
  if (!el) return []
  const out: XmlElement[] = []
  for (const d of descendants(el)) if (d.name === name) out.push(d)
  return out
}

export function firstDescendant(el: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!el) return undefined
  for (const d of descendants(el)) if (d.name === name) return d
  return undefined
}

/** Direct text content (for leaf elements such as `a:t` or `dc:title`). */
export function textOf(el: XmlElement | undefined): string {
  if (!el) return ''
  let s = ''
  for (const c of el.children) if (typeof c === 'string') s += c
  return s
}

export function attr(el: XmlElement | undefined, name: string): string | undefined {
  return el?.attrs[name]
}

/** xsd:boolean as OOXML writes it. */
export function isOn(value: string | undefined): boolean {
  return value === '1' || value === 'true' || value === 'on'
}

export function isOff(value: string | undefined): boolean {
  return value === '0' || value === 'false' || value === 'off'
}

export function intAttr(el: XmlElement | undefined, name: string): number | null {
  const v = attr(el, name)
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return null
  const n = Number.parseInt(v, 10)
  return Number.isSafeInteger(n) ? n : null
}
