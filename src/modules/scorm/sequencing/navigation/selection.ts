import { def, type SequencingContext, st } from '../state/sequencing-context.ts'

/**
 * Select Children Process [SR.1]: with selectionTiming `once` and a selectCount, picks that many
 * children at random (keeping their manifest order) before the activity's first attempt.
 * `onEachNewAttempt` is left undefined by the book and behaves as `never`.
 */
export function selectChildrenProcess(ctx: SequencingContext, id: string): void {
  const a = def(ctx, id)
  const s = st(ctx, id)
  if (a.children.length === 0 || s.active || s.suspended) return
  const { selectionTiming, selectCount } = a.randomization
  if (selectionTiming !== 'once' || s.progress || selectCount === null) return
  if (selectCount >= a.children.length) return
  // One draw per pick from the children not yet picked: terminates whatever the random source
  // returns (request validity and the CTS replay use a constant one).
  const pool = a.children.map((_, i) => i)
  const picked = new Set<number>()
  while (picked.size < selectCount) {
    const k = Math.floor(ctx.random() * pool.length) % pool.length
    picked.add(pool.splice(k, 1)[0] as number)
  }
  s.order = a.children.filter((_, i) => picked.has(i))
}

/**
 * Randomize Children Process [SR.2]: with reorderChildren, shuffles the available children
 * before the first attempt (`once`) or before every new attempt (`onEachNewAttempt`).
 */
export function randomizeChildrenProcess(ctx: SequencingContext, id: string): void {
  const a = def(ctx, id)
  const s = st(ctx, id)
  if (a.children.length === 0 || s.active || s.suspended) return
  const { randomizationTiming, reorderChildren } = a.randomization
  if (!reorderChildren || randomizationTiming === 'never') return
  if (randomizationTiming === 'once' && s.progress) return
  const order = [...(s.order ?? a.children)]
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(ctx.random() * (i + 1)) % (i + 1)
    ;[order[i], order[j]] = [order[j] as string, order[i] as string]
  }
  s.order = order
}

/** Selection and randomization of every activity not yet attempted, as the session starts. */
export function selectAndRandomizeTree(ctx: SequencingContext): void {
  for (const id of Object.keys(ctx.tree.activities)) {
    if (ctx.state.activities[id]?.progress) continue
    selectChildrenProcess(ctx, id)
    randomizeChildrenProcess(ctx, id)
  }
}
