/**
 * Small cryptographic helpers: secret comparison, hashing, random tokens, and
 * AES-256-GCM encryption at rest. Everything here is pure apart from randomness.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** Constant-time comparison of two strings; unequal lengths still take a comparison's time. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab)
    return false
  }
  return timingSafeEqual(ab, bb)
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

export function hmacSha256Hex(key: string | Uint8Array, data: string): string {
  return createHmac('sha256', key).update(data).digest('hex')
}

/** A random URL-safe token with `bytes` bytes of entropy (default 32 = 256 bits). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/**
 * Secrets at rest are sealed with AES-256-GCM under a key ring. The associated
 * data binds a ciphertext to the row and column it belongs to, so a ciphertext
 * copied into another row (another tenant's secret, another wallet's key) fails
 * to decrypt instead of being silently accepted.
 *
 * Format: `v<keyVersion>.<base64url(iv)>.<base64url(ciphertext||tag)>`.
 */
const SEALED_FORM = /^v\d+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,}$/

export class Sealer {
  private readonly keys = new Map<number, Uint8Array>()
  constructor(current: Uint8Array, readonly currentVersion = 1, previous: Record<number, Uint8Array> = {}) {
    if (current.length !== 32) throw new Error('master key must be 32 bytes')
    for (const [v, k] of Object.entries(previous)) this.keys.set(Number(v), k)
    this.keys.set(currentVersion, current)
  }

  seal(plaintext: string | Uint8Array, aad: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentVersion)!, iv)
    cipher.setAAD(Buffer.from(aad))
    const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
    return `v${this.currentVersion}.${iv.toString('base64url')}.${body.toString('base64url')}`
  }

  openBytes(sealed: string, aad: string): Buffer {
    const [tag, ivText, bodyText] = sealed.split('.')
    const key = tag?.startsWith('v') ? this.keys.get(Number(tag.slice(1))) : undefined
    if (!key || !ivText || !bodyText) throw new Error('sealed value is malformed or its key version is unknown')
    const body = Buffer.from(bodyText, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'))
    decipher.setAAD(Buffer.from(aad))
    decipher.setAuthTag(body.subarray(body.length - 16))
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()])
  }

  open(sealed: string, aad: string): string {
    return this.openBytes(sealed, aad).toString('utf8')
  }

  /** Key version a sealed value was written with, for rotation jobs. */
  static versionOf(sealed: string): number {
    return Number(sealed.slice(1, sealed.indexOf('.')))
  }

  /**
   * Whether a stored text has the sealed form (`v<version>.<16 characters of iv>.<body>`):
   * for columns that earlier versions wrote in clear, whose clear values (IBANs, partner
   * ids with `/`) never have it.
   */
  static isSealed(text: string): boolean {
    return SEALED_FORM.test(text)
  }
}
