import { createHash } from 'node:crypto'
import { cp, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * LibreOffice settings of every profile we run with. Macros never run; pictures and other
 * content linked from a document outside the trusted locations (there are none) are not loaded:
 * a linked picture in an upload would otherwise make LibreOffice read a local file into the
 * rendered slide or call a remote host (SSRF). `unshare -n` is the second wall for the network.
 */
const HARDENING: ReadonlyArray<[path: string, name: string, value: string]> = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', '3'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'SecureURL', ''],
  ['/org.openoffice.Office.Common/Misc', 'FirstRun', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'ShowTipOfTheDay', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseLocking', 'false'],
]

const MARKER = 'BlockUntrustedRefererLinks'

function hardeningItems(): string {
  return HARDENING.map(
    ([path, name, value]) =>
      `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse">${
        value === '' ? '<value/>' : `<value>${value}</value>`
      }</prop></item>`,
  ).join('\n')
}

const XCU_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<oor:items xmlns:oor="http://openoffice.org/2001/registry" ' +
  'xmlns:xs="http://www.w3.org/2001/XMLSchema" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'

/** A new profile's registry: just the hardening. */
export function hardenedRegistry(): string {
  return `${XCU_HEAD}${hardeningItems()}\n</oor:items>\n`
}

const registryPath = (profileDir: string) => join(profileDir, 'user', 'registrymodifications.xcu')

/**
 * Makes sure every hardening item is in the profile's registry (LibreOffice rewrites the file
 * on exit; this puts back anything it dropped). Returns whether the file had to change.
 */
export async function enforceHardening(profileDir: string): Promise<boolean> {
  const path = registryPath(profileDir)
  const current = await readFile(path, 'utf8').catch(() => '')
  const missing = HARDENING.filter(
    ([p, name, value]) =>
      !current.includes(
        `<item oor:path="${p}"><prop oor:name="${name}" oor:op="fuse">${
          value === '' ? '<value/>' : `<value>${value}</value>`
        }</prop></item>`,
      ),
  )
  if (missing.length === 0) return false
  if (!current.includes('</oor:items>')) {
    await mkdir(join(profileDir, 'user'), { recursive: true })
    await writeFile(path, hardenedRegistry())
    return true
  }
  // Later items win in LibreOffice's registry, so appending overrides any earlier value.
  await writeFile(path, current.replace('</oor:items>', `${hardeningItems()}\n</oor:items>`))
  return true
}

/** A one-slide flat ODF presentation: opening and exporting it warms a new profile up. */
export const WARM_UP_DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation><draw:page draw:name="1"/></office:presentation></office:body></office:document>
`

/**
 * A private directory for templates, owned by this user and closed to others, so nobody else on
 * the machine can plant a profile with macros switched on.
 */
export async function privateCacheDir(base: string): Promise<string> {
  await mkdir(base, { recursive: true, mode: 0o700 })
  const info = await stat(base)
  const uid = process.getuid?.()
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(`${base} belongs to another user; refusing to keep LibreOffice profiles there`)
  }
  if ((info.mode & 0o077) !== 0) {
    throw new Error(`${base} is open to other users (mode ${(info.mode & 0o777).toString(8)})`)
  }
  return base
}

/** Template directory name: a new LibreOffice version or new hardening makes a new template. */
export function templateName(officeVersion: string): string {
  const hash = createHash('sha256').update(officeVersion).update(hardenedRegistry())
  return `profile-${hash.digest('hex').slice(0, 16)}`
}

/**
 * Returns the path of a warmed, hardened profile template under `cacheDir`, building it with
 * `warmUp(profileDir, scratchDir)` when absent. Built in a scratch directory and renamed into
 * place, so concurrent builders (other processes) never see half a template.
 */
export async function ensureTemplate(
  cacheDir: string,
  officeVersion: string,
  warmUp: (profileDir: string, scratchDir: string) => Promise<void>,
): Promise<string> {
  const target = join(cacheDir, templateName(officeVersion))
  const ready = await readFile(registryPath(target), 'utf8').catch(() => '')
  if (ready.includes(MARKER)) return target
  const build = await mkdtemp(join(cacheDir, 'build-'))
  try {
    const profile = join(build, 'profile')
    await mkdir(join(profile, 'user'), { recursive: true })
    await writeFile(registryPath(profile), hardenedRegistry())
    await warmUp(profile, join(build, 'scratch'))
    await enforceHardening(profile)
    const now = await readFile(registryPath(target), 'utf8').catch(() => null)
    if (now?.includes(MARKER)) return target // another builder finished first
    // A template without the hardening is broken (interrupted, edited by hand): move it aside.
    if (now !== null) await rename(target, join(build, 'stale')).catch(() => {})
    await rename(profile, target).catch(async (err: NodeJS.ErrnoException) => {
      // Another process finished first: its template is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err
    })
    return target
  } finally {
    await rm(build, { recursive: true, force: true })
  }
}

/** A job's own copy of the template: profiles shared by running conversions break them. */
export async function copyProfile(template: string, dest: string): Promise<string> {
  await cp(template, dest, { recursive: true })
  await enforceHardening(dest)
  return dest
}
