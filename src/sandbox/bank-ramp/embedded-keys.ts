/**
 * Credentials of the embedded simulator. A tenant whose sandbox has no partner address
 * uses the simulator served by this process, with an API key and a webhook key derived
 * from a server secret and the tenant id: nothing to configure, and no tenant can use
 * another's simulator account, because a key cannot be made without the server secret.
 */
import { createHmac } from 'node:crypto'
import { safeEqual } from '../../lib/crypto'

const mac = (secret: Uint8Array, label: string, tenantId: string) =>
  createHmac('sha256', secret).update(`slipway:bank-ramp-simulator:${label}:${tenantId}`).digest('base64url')

export function embeddedCredentials(secret: Uint8Array, tenantId: string) {
  return { apiKey: `sim_${tenantId}.${mac(secret, 'api-key', tenantId)}`, webhookKey: mac(secret, 'webhook-key', tenantId) }
}

/** The tenant an embedded API key belongs to, or null for any other text. */
export function tenantOfEmbeddedKey(secret: Uint8Array, apiKey: string): string | null {
  const m = /^sim_([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/.exec(apiKey)
  if (!m) return null
  return safeEqual(apiKey, embeddedCredentials(secret, m[1]!).apiKey) ? m[1]! : null
}

/**
 * The key of the simulator's saved beneficiary ids (payouts.ts): derived like the others, so
 * it outlives a restart with the saved state, and no tenant can compute another's ids.
 */
export const embeddedStateKey = (secret: Uint8Array): Uint8Array =>
  createHmac('sha256', secret).update('slipway:bank-ramp-simulator:beneficiary-key').digest()
