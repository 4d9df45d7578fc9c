import { open } from 'node:fs/promises'
import { identifyOleFile } from './ole-directory.reader.ts'
import { corrupt, REJECTION_MESSAGES, rejection } from './ooxml.errors.ts'

const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])

/**
 * Looks at the first bytes so that anything that is not a ZIP gets a precise message instead of
 * a ZIP parser error. Resolves with the file size when the file starts like a ZIP archive.
 */
export async function sniffZipFile(path: string): Promise<number> {
  let file: Awaited<ReturnType<typeof open>>
  try {
    file = await open(path, 'r')
  } catch (err) {
    throw corrupt('the uploaded file could not be opened', err)
  }
  try {
    const { size } = await file.stat()
    if (size === 0) throw rejection('empty')
    const head = Buffer.alloc(8)
    const { bytesRead } = await file.read(head, 0, 8, 0)
    const magic = head.subarray(0, bytesRead)
    if (magic.length >= 4 && magic[0] === 0x50 && magic[1] === 0x4b) {
      // Local file header, empty archive, or spanned-archive marker: let the ZIP reader decide.
      const kind = (magic[2] ?? 0) * 256 + (magic[3] ?? 0)
      if (kind === 0x0304 || kind === 0x0506 || kind === 0x0708) return size
    }
    if (magic.length === 8 && magic.equals(OLE_MAGIC)) throw await oleRejection(file, size)
    if (magic.subarray(0, 5).toString('latin1') === '%PDF-') throw rejection('pdf')
    throw rejection('not_zip')
  } finally {
    await file.close()
  }
}

async function oleRejection(file: Parameters<typeof identifyOleFile>[0], size: number) {
  switch (await identifyOleFile(file, size)) {
    case 'encrypted_ooxml':
      return rejection('encrypted')
    case 'powerpoint':
      return rejection('legacy_ppt')
    case 'word':
      return rejection(
        'legacy_office',
        'This is an older Word document (.doc), not a PowerPoint presentation.',
      )
    case 'excel':
      return rejection(
        'legacy_office',
        'This is an older Excel workbook (.xls), not a PowerPoint presentation.',
      )
    case 'unknown':
      return rejection('legacy_office', REJECTION_MESSAGES.legacy_office)
  }
}
