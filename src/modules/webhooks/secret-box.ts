import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const VERSION = 'v1'

/**
 * Encrypts endpoint signing secrets at rest (AES-256-GCM, key derived from SECRET_KEY with HKDF),
 * so a database dump alone does not let anyone forge webhooks. Every process that sends webhooks
 * must share SECRET_KEY, as it must for launch tokens already.
 */
export class SecretBox {
  readonly #key: Buffer
  constructor(secretKey: string) {
    this.#key = Buffer.from(
      hkdfSync('sha256', secretKey, 'courseport', 'webhook-signing-secrets', 32),
    )
  }

  seal(plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    const parts = [iv, cipher.getAuthTag(), ct].map((b) => b.toString('base64url'))
    return [VERSION, ...parts].join('.')
  }

  /** Throws if the box was not sealed with this SECRET_KEY. */
  open(box: string): string {
    const [version, iv, tag, ct] = box.split('.')
    if (version !== VERSION || !iv || !tag || ct === undefined) {
      throw new Error('unrecognised secret box')
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([
      decipher.update(Buffer.from(ct, 'base64url')),
      decipher.final(),
    ]).toString('utf8')
  }
}
