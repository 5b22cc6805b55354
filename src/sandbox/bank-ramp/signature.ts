/**
 * The partner's webhook signature as Slipway checks it. The partner's OpenAPI names the
 * `Webhook-Signature` header without its format, so the format is ours and documented
 * (docs/bank-ramp.md): `t=<Unix seconds>,v1=<hex HMAC-SHA256(webhook key, t + "." + raw body)>`.
 * The timestamp inside the signed text stops a captured delivery being replayed later
 * than the tolerance; several `v1=` entries may appear while a key is being replaced.
 */
import { createHmac } from 'node:crypto'
import { hmacSha256Hex, safeEqual } from '../../lib/crypto'

export const PARTNER_SIGNATURE_TOLERANCE_SECONDS = 300

export function signPartnerWebhook(key: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacSha256Hex(key, `${unixSeconds}.${body}`)}`
}

export type SignatureCheck = 'ok' | 'missing' | 'malformed' | 'expired' | 'mismatch'

/**
 * `body`: the raw bytes as received. The HMAC is computed over them, never over decoded text:
 * decoding replaces malformed UTF-8 with U+FFFD, so different bytes could share a signature.
 */
export function verifyPartnerWebhook(keys: string[], header: string | null, body: Uint8Array, nowSeconds: number): SignatureCheck {
  if (!header) return 'missing'
  let t: string | undefined
  const sigs: string[] = []
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2)
    if (k === 't') t = v
    else if (k === 'v1' && v) sigs.push(v)
  }
  if (!t || !/^\d{1,12}$/.test(t) || !sigs.length) return 'malformed'
  if (Math.abs(nowSeconds - Number(t)) > PARTNER_SIGNATURE_TOLERANCE_SECONDS) return 'expired'
  let ok = false
  // every pair is compared (constant time each), so the time does not tell which key matched
  for (const key of keys) {
    const expected = createHmac('sha256', key).update(`${t}.`).update(body).digest('hex')
    for (const s of sigs) ok = safeEqual(s, expected) || ok
  }
  return ok ? 'ok' : 'mismatch'
}
