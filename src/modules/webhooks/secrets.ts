import type { Deps } from '../../deps'
import type { webhooks } from './schema'

/** Associated data binds the sealed secret to its tenant and webhook row. */
export const secretAad = (tenantId: string, webhookId: string) => `webhook:${tenantId}:${webhookId}:secret`

export function sealSecret(deps: Pick<Deps, 'sealer'>, tenantId: string, webhookId: string, secret: string) {
  return deps.sealer.seal(secret, secretAad(tenantId, webhookId))
}

export function openSecret(deps: Pick<Deps, 'sealer'>, hook: Pick<typeof webhooks.$inferSelect, 'tenantId' | 'id' | 'secretSealed'>) {
  return deps.sealer.open(hook.secretSealed, secretAad(hook.tenantId, hook.id))
}
