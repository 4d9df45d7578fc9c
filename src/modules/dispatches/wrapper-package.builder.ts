import { ZipFile } from 'yazl'
import { manifestXml } from '../publish/course-generator/manifest.writer.ts'
import { escapeXml } from '../publish/course-generator/text.escape.ts'
import { dispatchScripts } from './dispatch-scripts.bundler.ts'

export interface WrapperPackageInput {
  dispatchId: string
  /** Shown by the LMS: the dispatched package's title. */
  title: string
  scormVersion: '1.2' | '2004'
  /** The dispatch's launchUrl (frame page on the content origin, with its token). */
  frameUrl: string
  /** Entry timestamps; default now. */
  mtime?: Date
}

const SCRIPT = 'courseport-dispatch.js'
const LAUNCH = 'index.html'

/** Inline JSON that cannot close its script element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
}

function indexHtml(input: WrapperPackageInput): string {
  const config = {
    frameUrl: input.frameUrl,
    contentOrigin: new URL(input.frameUrl).origin,
    scormVersion: input.scormVersion,
    dispatchId: input.dispatchId,
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(input.title)}</title>
<style>
html, body { margin: 0; height: 100%; background: #fff; }
#cp-stage { position: fixed; inset: 0; }
#cp-stage iframe { border: 0; width: 100%; height: 100%; display: block; }
#cp-message { font: 16px/1.5 system-ui, sans-serif; max-width: 36em; margin: 3em auto; padding: 0 1em; color: #222; }
</style>
</head>
<body>
<div id="cp-stage"></div>
<p id="cp-message" role="alert" hidden></p>
<noscript><p>This course needs JavaScript. Turn it on and reopen the course.</p></noscript>
<script type="application/json" id="courseport-dispatch">${scriptJson(config)}</script>
<script src="${SCRIPT}"></script>
</body>
</html>
`
}

/**
 * The dispatch zip: a valid single-SCO SCORM 1.2 or 2004 (4th Edition) package whose SCO is the
 * wrapper (imsmanifest.xml, index.html, courseport-dispatch.js).
 */
export async function buildWrapperPackage(input: WrapperPackageInput): Promise<Buffer> {
  const { wrapper } = await dispatchScripts()
  const mtime = input.mtime ?? new Date()
  const zip = new ZipFile()
  const files: Array<[string, string]> = [
    [
      'imsmanifest.xml',
      manifestXml({
        version: input.scormVersion,
        identifier: `courseport.dispatch.${input.dispatchId}`,
        title: input.title,
        launch: LAUNCH,
        files: [LAUNCH, SCRIPT],
      }),
    ],
    [LAUNCH, indexHtml(input)],
    [SCRIPT, wrapper],
  ]
  for (const [name, text] of files) zip.addBuffer(Buffer.from(text, 'utf8'), name, { mtime })
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
