import { isAppError } from '../../../shared/app-error.ts'
import { sniffZipFile } from './file-format.sniffer.ts'
import { corrupt, rejection } from './ooxml.errors.ts'
import {
  ContentTypes,
  NO_RELATIONSHIPS,
  parseRelationships,
  type Relationships,
  relsPartFor,
} from './opc.parts.ts'
import { decodeXmlBytes, parseXml, type XmlElement, XmlError } from './xml.parser.ts'
import { ZipArchive, type ZipLimits } from './zip-archive.reader.ts'

const CONTENT_TYPES_PART = '[Content_Types].xml'

/**
 * An opened OPC package: the ZIP, its content types and a cache of parsed relationship parts.
 * Every failure surfaces as the module's `unprocessable` AppError.
 */
export class OoxmlPackage {
  readonly zip: ZipArchive
  readonly contentTypes: ContentTypes
  readonly limits: ZipLimits
  readonly #rels = new Map<string, Relationships>()

  private constructor(zip: ZipArchive, contentTypes: ContentTypes, limits: ZipLimits) {
    this.zip = zip
    this.contentTypes = contentTypes
    this.limits = limits
  }

  /**
   * Sniffs the file, opens the ZIP within `limits` and parses `[Content_Types].xml`.
   * `classify` runs on the entry names before anything is inflated, to recognise look-alikes
   * (Keynote, OpenDocument) and explain them instead of calling them damaged.
   */
  static async open(
    path: string,
    limits: ZipLimits,
    classify: (names: string[]) => Error | null,
  ): Promise<OoxmlPackage> {
    await sniffZipFile(path)
    const zip = await ZipArchive.open(path, limits)
    try {
      const names = zip.names()
      const lookalike = classify(names)
      if (lookalike) throw lookalike
      if (!zip.find(CONTENT_TYPES_PART)) {
        throw rejection(
          'not_presentation',
          'This file is a ZIP archive but not a PowerPoint presentation (it has no [Content_Types].xml).',
        )
      }
      const types = await readXmlFrom(zip, CONTENT_TYPES_PART, limits)
      return new OoxmlPackage(zip, new ContentTypes(types), limits)
    } catch (err) {
      zip.close()
      throw err
    }
  }

  /** The stored part name (archive spelling), or undefined when absent. */
  resolve(partName: string): string | undefined {
    return this.zip.find(partName)?.name
  }

  contentTypeOf(partName: string): string | null {
    return this.contentTypes.of(partName)
  }

  async xml(partName: string): Promise<XmlElement> {
    return readXmlFrom(this.zip, partName, this.limits)
  }

  /** Relationships of a part; an absent .rels part means none (not an error). */
  async rels(sourcePart: string): Promise<Relationships> {
    const relsPart = relsPartFor(sourcePart)
    const cached = this.#rels.get(relsPart.toLowerCase())
    if (cached) return cached
    const rels = this.zip.find(relsPart)
      ? parseRelationships(await this.xml(relsPart), sourcePart)
      : NO_RELATIONSHIPS
    this.#rels.set(relsPart.toLowerCase(), rels)
    return rels
  }

  close(): void {
    this.zip.close()
  }
}

async function readXmlFrom(zip: ZipArchive, partName: string, limits: ZipLimits) {
  const bytes = await zip.read(partName, limits.maxXmlPartBytes)
  try {
    return parseXml(decodeXmlBytes(bytes))
  } catch (err) {
    if (isAppError(err)) throw err
    if (err instanceof XmlError && err.kind === 'doctype') {
      throw rejection(
        'corrupt',
        `The presentation contains a DOCTYPE declaration (in ${partName}), which PowerPoint never writes; it was refused for safety.`,
      )
    }
    throw corrupt(`part ${partName} is not well-formed XML`, err)
  }
}
