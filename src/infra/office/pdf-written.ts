import { type FSWatcher, watch } from 'node:fs'
import { open } from 'node:fs/promises'
import { basename, dirname } from 'node:path'

/** The end of a PDF with a classic cross-reference table, as LibreOffice writes it. */
const TRAILER_END = /startxref\s+(\d+)\s+%%EOF\s*$/

/**
 * Whether `path` holds a whole PDF: it ends with `startxref N %%EOF` and its cross-reference
 * table starts at N. A file still being written (sequentially) has no such end yet.
 */
export async function isCompletePdf(path: string): Promise<boolean> {
  const file = await open(path).catch(() => null)
  if (!file) return false
  try {
    const { size } = await file.stat()
    const tail = Buffer.alloc(Math.min(size, 1024))
    await file.read(tail, 0, tail.length, size - tail.length)
    const xref = Number(TRAILER_END.exec(tail.toString('latin1'))?.[1] ?? Number.NaN)
    if (!Number.isInteger(xref) || xref >= size) return false
    const keyword = Buffer.alloc(4)
    await file.read(keyword, 0, 4, xref)
    return keyword.toString('latin1') === 'xref'
  } finally {
    await file.close()
  }
}

/**
 * Resolves true once `pdf` is complete (isCompletePdf), watching its directory, or false when
 * `stop` is aborted first (or the directory cannot be watched). Never rejects. LibreOffice
 * writes its PDF 40-180 ms before its process has exited (it shuts down in between), so the
 * pictures can start that much sooner.
 */
export function whenPdfWritten(pdf: string, stop: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined
    let checking = false
    let again = false
    const finish = (complete: boolean) => {
      watcher?.close()
      stop.removeEventListener('abort', onStop)
      resolve(complete)
    }
    const onStop = () => finish(false)
    const check = async () => {
      if (checking) {
        again = true // events during a check: look again afterwards
        return
      }
      checking = true
      do {
        again = false
        if (await isCompletePdf(pdf).catch(() => false)) return finish(true)
      } while (again && !stop.aborted)
      checking = false
    }
    if (stop.aborted) return resolve(false)
    stop.addEventListener('abort', onStop, { once: true })
    try {
      watcher = watch(dirname(pdf), (_event, file) => {
        if (file === basename(pdf) && !stop.aborted) void check()
      })
      watcher.on('error', () => finish(false))
    } catch {
      finish(false)
    }
  })
}
