import { isAppError } from '../../../shared/app-error.ts'
import { corrupt } from './ooxml.errors.ts'
import type { ZipLimits } from './zip-archive.reader.ts'

export interface ReaderOptions {
  /** Overrides of DEFAULT_ZIP_LIMITS (entries, total size, ratio, XML part size). */
  limits?: Partial<ZipLimits>
}

/**
 * Whatever a hostile or broken file makes the parsers throw becomes the module's
 * `unprocessable` rejection, so callers see one error type and the process never crashes.
 */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (isAppError(err)) throw err
    throw corrupt('its structure could not be read', err)
  }
}
