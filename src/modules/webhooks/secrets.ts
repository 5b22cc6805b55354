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

/** Opened secrets kept by the delivery worker, at most this many (one per webhook in use). */
const OPENED_MAX = 1000

/**
 * `openSecret` for the attempts: the opened secret is kept per sealed value and the row it is
 * bound to (a new secret is a new sealed value, so a rotation is read at the next attempt, as
 * before), instead of an AES-GCM open per attempt. It stays in this process's memory as long
 * as the webhook is in use, as it does for each attempt's signing anyway.
 */
export function secretOpener(deps: Pick<Deps, 'sealer'>) {
  const opened = new Map<string, string>()
  return (hook: Pick<typeof webhooks.$inferSelect, 'tenantId' | 'id' | 'secretSealed'>): string => {
    const key = `${hook.tenantId}:${hook.id}:${hook.secretSealed}`
    let secret = opened.get(key)
    if (secret === undefined) {
      secret = openSecret(deps, hook)
      if (opened.size >= OPENED_MAX) opened.delete(opened.keys().next().value!)
      opened.set(key, secret)
    }
    return secret
  }
}
