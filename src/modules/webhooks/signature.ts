/**
 * Webhook signatures: `v1=` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)),
 * key = the decoded bytes after `whsec_`. The same value, as `v1,<base64>`, is sent in
 * the Standard Webhooks headers so receivers can verify with that library.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

export const SECRET_PREFIX = 'whsec_'

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

/** The four characters before the secret's final `=` (spec, Webhook record). */
export function secretHint(secret: string): string {
  const body = secret.replace(/=+$/, '')
  return body.slice(-4)
}

export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('webhook secret must start with whsec_')
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
}

/** base64 HMAC-SHA256 over `id.timestamp.body`. */
export function signPayload(secret: string, id: string, timestampSeconds: number | string, body: string): string {
  return createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
}

export const USER_AGENT = 'Slipway-Webhooks/1.0'

export function deliveryHeaders(secret: string, id: string, type: string, timestampSeconds: number, body: string): Record<string, string> {
  const sig = signPayload(secret, id, timestampSeconds, body)
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-webhook-id': id,
    'x-webhook-timestamp': String(timestampSeconds),
    'x-webhook-event': type,
    'x-webhook-signature': `v1=${sig}`,
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${sig}`,
  }
}

/** How far a delivery's timestamp may be from the receiver's clock (Standard Webhooks' default). */
export const TIMESTAMP_TOLERANCE_SECONDS = 300

export type Verification = { ok: true } | { ok: false; reason: string }

/**
 * A receiver's check of one delivery, as Standard Webhooks specifies it and as a tenant's
 * `standardwebhooks` library does: the `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` headers, the timestamp within five minutes, and one of the
 * space-separated `v1,<base64>` signatures equal (in constant time) to the HMAC over
 * `id.timestamp.body` of the raw body. Used by `slipway webhooks listen`.
 */
export function verifyDelivery(secret: string, headers: Headers, body: string, nowSeconds: number): Verification {
  const id = headers.get('webhook-id')
  const timestamp = headers.get('webhook-timestamp')
  const signatures = headers.get('webhook-signature')
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not Unix seconds' }
  if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return { ok: false, reason: 'webhook-timestamp is more than 5 minutes off' }
  const expected = Buffer.from(signPayload(secret, id, timestamp, body))
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2)
    if (version !== 'v1' || !value) continue
    const given = Buffer.from(value)
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true }
  }
  return { ok: false, reason: 'no signature matches the secret' }
}
