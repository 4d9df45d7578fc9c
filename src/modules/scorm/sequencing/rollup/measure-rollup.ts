import { setAmount, setMeasure } from '../state/objective-status.ts'
import { availableChildren, def, type SequencingContext } from '../state/sequencing-context.ts'
import { rollupAmount, rollupView } from './rollup-view.ts'

/**
 * Measure Rollup Process [RB.1.1a]: the primary objective's normalized measure is the average
 * of the tracked children's measures weighted by their objectiveMeasureWeight (default 1.0);
 * unknown when no child has a measure or all weights are 0.
 */
export function measureRollupProcess(ctx: SequencingContext, id: string): void {
  let total = 0
  let counted = 0
  let valid = false
  for (const child of availableChildren(ctx, id)) {
    const c = def(ctx, child)
    if (!c.deliveryControls.tracked) continue
    counted += c.objectiveMeasureWeight
    const m = rollupView.measure(ctx, child, null)
    if (m !== undefined) {
      total += m * c.objectiveMeasureWeight
      valid = true
    }
  }
  setMeasure(ctx, id, valid && counted > 0 ? total / counted : undefined)
}

/**
 * Completion Measure Rollup Process [RB.1.1b, 4th Edition]: the attempt completion amount is
 * the average of the tracked children's amounts weighted by their progressWeight (adlcp:
 * completionThreshold, default 1.0).
 */
export function completionMeasureRollupProcess(ctx: SequencingContext, id: string): void {
  let total = 0
  let counted = 0
  let valid = false
  for (const child of availableChildren(ctx, id)) {
    const c = def(ctx, child)
    if (!c.deliveryControls.tracked) continue
    const weight = c.completionThreshold.progressWeight
    counted += weight
    const amount = rollupAmount(ctx, child)
    if (amount !== undefined) {
      total += amount * weight
      valid = true
    }
  }
  setAmount(ctx, id, valid && counted > 0 ? total / counted : undefined)
}
