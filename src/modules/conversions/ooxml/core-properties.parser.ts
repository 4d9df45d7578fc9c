import { isAppError } from '../../../shared/app-error.ts'
import type { OoxmlPackage } from './ooxml.package.ts'
import { firstRelOfType } from './opc.parts.ts'
import type { CoreProperties } from './presentation.types.ts'
import { child, textOf } from './xml-tree.query.ts'

const DEFAULT_CORE_PART = 'docProps/core.xml'

/**
 * docProps/core.xml (found through the package relationships, else at its usual place).
 * Absent → null; damaged → null plus `damaged: true` so the caller can warn. Never throws for
 * content problems, because a deck without metadata is still a deck.
 */
export async function readCoreProperties(
  pkg: OoxmlPackage,
): Promise<{ properties: CoreProperties | null; damaged: string | null }> {
  let partName: string | undefined
  try {
    const rel = firstRelOfType(await pkg.rels(''), 'core-properties')
    partName = rel?.partName ? pkg.resolve(rel.partName) : undefined
  } catch (err) {
    if (!isAppError(err)) throw err
  }
  partName ??= pkg.resolve(DEFAULT_CORE_PART)
  if (!partName) return { properties: null, damaged: null }
  try {
    const root = await pkg.xml(partName)
    const field = (name: string) => {
      const v = textOf(child(root, name)).replace(/\s+/g, ' ').trim()
      return v === '' ? null : v
    }
    return {
      properties: {
        title: field('dc:title'),
        subject: field('dc:subject'),
        creator: field('dc:creator'),
        description: field('dc:description'),
      },
      damaged: null,
    }
  } catch (err) {
    if (!isAppError(err) || (err.details as { reason?: string })?.reason === 'too_large') throw err
    return { properties: null, damaged: partName }
  }
}
