/**
 * Webhook signatures: `v1=` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)),
 * key = the decoded bytes after `whsec_`. The same value, as `v1,<base64>`, is sent in
 * the Standard Webhooks headers so receivers can verify with that library.
 */
import { createHmac, randomBytes } from 'node:crypto'

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
