/**
 * Which slides the learner has seen, kept in cmi.suspend_data as `{"v":1,"seen":"<hex>"}`: one
 * bit per slide (slide i is bit i % 4 of hex digit ⌊i / 4⌋), so 4 000 characters of SCORM
 * 1.2's 4 096 cover some 16 000 slides. Browser-safe: no node: imports.
 */

export function encodeViewed(viewed: ReadonlySet<number>, total: number): string {
  const digits: number[] = new Array(Math.ceil(total / 4)).fill(0)
  for (const i of viewed) {
    if (Number.isInteger(i) && i >= 0 && i < total)
      digits[i >> 2] = (digits[i >> 2] ?? 0) | (1 << (i & 3))
  }
  return JSON.stringify({ v: 1, seen: digits.map((d) => d.toString(16)).join('') })
}

/** Slides seen according to stored suspend data; anything unreadable counts as nothing seen. */
export function decodeViewed(data: string, total: number): Set<number> {
  const viewed = new Set<number>()
  let seen: unknown
  try {
    seen = (JSON.parse(data) as { seen?: unknown } | null)?.seen
  } catch {
    return viewed
  }
  if (typeof seen !== 'string' || !/^[0-9a-f]*$/.test(seen)) return viewed
  for (let d = 0; d < seen.length; d++) {
    const bits = Number.parseInt(seen[d] as string, 16)
    for (let b = 0; b < 4; b++) {
      const i = d * 4 + b
      if (bits & (1 << b) && i < total) viewed.add(i)
    }
  }
  return viewed
}
