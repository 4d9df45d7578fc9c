import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The read-only fixtures shared by every project checkout (`../shared/fixtures`). */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures')

export function fixture(...path: string[]): Buffer {
  return readFileSync(join(FIXTURES, ...path))
}

export const GOLF = {
  'RuntimeBasicCalls_SCORM20043rdEdition.zip': { version: '2004', edition: '2004 3rd Edition' },
  'RuntimeMinimumCalls_SCORM12.zip': { version: '1.2', edition: '1.2' },
  'singlesco_scorm12.zip': { version: '1.2', edition: '1.2' },
  'singlescobasic.zip': { version: '1.2', edition: '1.2' },
} as const
