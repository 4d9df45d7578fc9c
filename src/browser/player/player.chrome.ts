/**
 * What the bars and the contents show, drawn again from the player's state after each change:
 * item marks and locks, previous/continue, and under the sequencer its contents and leave menu.
 */
import type { PlayerState } from './player.state.ts'
import type { PlayerView } from './player.view.ts'
import type { SequencerNavigator } from './sequencer.navigator.ts'

/** Contents marks, locks (prerequisites) and the previous/continue buttons, after a change. */
export function refreshItems(view: PlayerView, state: PlayerState): void {
  const statuses = state.statuses
  // Under the sequencer the contents' marks are the server's (rolled up), not the SCO's own.
  if (statuses && !state.seq) {
    for (const item of state.nav.items) {
      if (item.launchable) view.setItemState(item.id, statuses.state(item))
    }
  }
  updateControls(view, state)
}

/** Contents, controls and leave menu from the sequencer's latest `ui`. */
export function renderSequenced(view: PlayerView, state: PlayerState): void {
  const seq = state.seq
  if (!seq) return
  const contents = seq.contents()
  view.setContents(contents)
  const leaves = seq.ui.toc.filter(
    (e, i) => e.depth > 0 && (seq.ui.toc[i + 1]?.depth ?? 0) <= e.depth,
  )
  const several = leaves.length > 1
  const toc = seq.ui.tocEnabled && contents.length > 0
  const c = seq.controls(true)
  const controls = several && !(c.previous.hidden && c.continue.hidden)
  view.setChrome({ toc, controls, bar: several || toc })
  view.setLeaveMenu([
    { id: 'exit', ...c.exit },
    { id: 'suspendAll', ...c.suspendAll },
    { id: 'exitAll', ...c.exitAll },
  ])
  updateControls(view, state)
}

/** Previous/continue and "2 of 5": disabled while a move is under way or after the end. */
export function updateControls(view: PlayerView, state: PlayerState): void {
  if (state.seq) {
    updateSequencedControls(view, state, state.seq)
    return
  }
  const launchable = state.nav.items.filter((i) => i.launchable)
  const current = state.nav.current
  const index = current ? launchable.indexOf(current) : -1
  const idle = !state.busy && !state.ended
  view.setControls({
    canPrevious: idle && state.nav.canPrevious(),
    canNext: idle && state.nav.canNext(),
    position: index >= 0 ? `${index + 1} of ${launchable.length}` : '',
    busy: state.busy,
  })
}

function updateSequencedControls(
  view: PlayerView,
  state: PlayerState,
  seq: SequencerNavigator,
): void {
  const c = seq.controls(!state.busy && !state.ended)
  const leaves = seq.contents().filter((e) => !e.cluster)
  const index = leaves.findIndex((e) => e.current)
  view.setControls({
    canPrevious: c.previous.enabled,
    canNext: c.continue.enabled,
    hidePrevious: c.previous.hidden,
    hideNext: c.continue.hidden,
    position: index >= 0 ? `${index + 1} of ${leaves.length}` : '',
    busy: state.busy,
  })
}
