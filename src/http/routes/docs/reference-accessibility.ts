/**
 * What the vendor's reference page lacks for axe-core's serious and critical rules, added by us
 * (@scalar/fastify-api-reference 1.72): a page language, text colours with at least 4.5:1
 * contrast on their backgrounds (the light theme's grey and method colours are 3.2–4.0:1 at
 * 10–14 px), a name on the icon-only "copy" buttons of code blocks, and keyboard focus on the
 * scrolling endpoint lists. test/e2e/dashboard/api-docs.test.ts runs axe on the page.
 */

/** Darker shades of the light theme's colours; the dark theme already passes. */
export const REFERENCE_CONTRAST_CSS = [
  '.light-mode {',
  '  --scalar-color-2: #616161; --scalar-color-3: #6b6b6b;',
  '  --scalar-color-blue: #0069a8; --scalar-color-green: #006b47; --scalar-color-red: #c40005;',
  '  --scalar-color-orange: #b23d00; --scalar-color-query: #006266;',
  '  --scalar-color-yellow: #7a5e00; --scalar-color-accent: #0069a8;',
  '}',
].join('\n')

/** Served at `REFERENCE_SCRIPT_PATH`; labels what the vendor renders later, as it renders it. */
export const REFERENCE_ACCESSIBILITY_SCRIPT = `(() => {
  const mend = () => {
    for (const button of document.querySelectorAll('button.scalar-code-copy:not([aria-label])'))
      button.setAttribute('aria-label', 'Copy code')
    for (const list of document.querySelectorAll('.endpoints:not([tabindex])'))
      list.setAttribute('tabindex', '0')
  }
  new MutationObserver(mend).observe(document.documentElement, { childList: true, subtree: true })
  mend()
})()
`

export const REFERENCE_SCRIPT_PATH = '/api/docs/accessibility.js'

/** The vendor's page with a language and our script. */
export function withAccessibility(html: string): string {
  return html
    .replace(/<html>/i, '<html lang="en">')
    .replace(/<\/body>/i, `<script src="${REFERENCE_SCRIPT_PATH}"></script></body>`)
}
