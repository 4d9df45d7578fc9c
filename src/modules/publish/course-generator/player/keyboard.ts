/** Keyboard shortcuts of the player. Browser-safe: no node: imports. */

export type NavigationAction = 'next' | 'previous' | 'first' | 'last'

export interface KeyPress {
  key: string
  altKey?: boolean
  ctrlKey?: boolean
  metaKey?: boolean
  /** Lower-case tag name of the focused element, e.g. 'input', 'video'. */
  targetTag?: string
  /** The focused element is contenteditable. */
  targetEditable?: boolean
}

// Where arrows, Home and End already mean something: moving a caret, seeking, choosing.
const OWN_KEYS = new Set(['input', 'textarea', 'select', 'audio', 'video'])

const ACTIONS: Readonly<Record<string, NavigationAction>> = {
  ArrowRight: 'next',
  PageDown: 'next',
  ArrowLeft: 'previous',
  PageUp: 'previous',
  Home: 'first',
  End: 'last',
}

/** The navigation a key press asks for, or null when the key belongs to someone else. */
export function navigationForKey(press: KeyPress): NavigationAction | null {
  if (press.altKey || press.ctrlKey || press.metaKey) return null
  if (press.targetEditable || (press.targetTag && OWN_KEYS.has(press.targetTag))) return null
  return Object.hasOwn(ACTIONS, press.key) ? (ACTIONS[press.key] ?? null) : null
}
