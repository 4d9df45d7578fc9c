/** The one way the view makes DOM nodes: text only ever goes in through textContent. */

export type MakeElement = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
) => HTMLElementTagNameMap[K]

export function elementMaker(doc: Document): MakeElement {
  return (tag, className, text) => {
    const node = doc.createElement(tag)
    if (className) node.className = className
    if (text !== undefined) node.textContent = text
    return node
  }
}
