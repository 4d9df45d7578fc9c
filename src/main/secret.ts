import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The signing secret when SECRET_KEY is not set: created once under DATA_DIR so a single-machine
 * install keeps working across restarts. Several processes on different machines must share an
 * explicit SECRET_KEY instead.
 */
export function loadOrCreateLocalSecret(dataDir: string): string {
  const path = join(dataDir, 'secret.key')
  if (existsSync(path)) return readFileSync(path, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('hex')
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' })
  chmodSync(path, 0o600)
  return secret
}
