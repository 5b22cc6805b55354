/** Where a ceremony may come from: the tenant's own front end (its settings), or Slipway's hosted page. */
import type { Deps } from '../../deps'
import type { StoredSettings } from '../tenants'
import { refused, type Expected, type Stage } from './ceremony'

/** The tenant's relying party and origins; refused when the tenant has not set them. */
export function tenantExpected(settings: StoredSettings, stage: Stage = 'other'): Expected {
  const { rpId, origins } = settings.passkeys
  if (!rpId || origins.length === 0) throw refused('PASSKEYS_NOT_CONFIGURED', stage)
  return { rpId, origins }
}

/** The hosted page's: Slipway's own host (PUBLIC_BASE_URL) is the relying party, its origin the only one. */
export function hostedExpected(deps: Pick<Deps, 'config'>): Expected {
  const url = new URL(deps.config.publicBaseUrl)
  return { rpId: url.hostname, origins: [url.origin] }
}
