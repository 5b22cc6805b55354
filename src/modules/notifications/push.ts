/**
 * The `notifications.push` job: one notification to the device token the user registered
 * (`PATCH /v1/users/me/fcm-token`), in the user's language, through deps.push (FCM HTTP v1).
 *
 * - Nothing to do: FCM not configured, the notification or user gone, the user deleted or
 *   without a token, or the notification already handed to FCM (a job run twice).
 * - FCM unavailable (5xx, 429, no answer): asked again later, as a new outbox job with a
 *   growing delay (2 s, 4 s, 8 s... at most 10 minutes; FCM's `Retry-After` when it asks for
 *   longer), PUSH_ATTEMPTS times in all, then given up with an error log line.
 * - The token unregistered (404 `UNREGISTERED`) or not a token (400 `INVALID_ARGUMENT` about
 *   `message.token`): the user's token is dropped (only while it is still that token) and the
 *   push is not tried again.
 * - Any other refusal (a bad key, a wrong project): logged, not tried again.
 * The device token and the service account key are never logged.
 */
import type { Deps } from '../../deps'
import { scheduleJob } from '../../jobs/outbox'
import { dropFcmToken, findUser as findById } from '../users'
import { findNotification, markPushed } from './repo'
import { localeOf, renderNotification } from './templates'
import { pushJob } from './topics'

/** Sends of one push before it is given up (2 + 4 + … + 128 s: about 4 minutes of delays when FCM asks for no longer). */
export const PUSH_ATTEMPTS = 8
const MAX_DELAY_MS = 600_000
/** How long FCM may ask us to wait (`Retry-After`) before the next attempt. */
const MAX_RETRY_AFTER_MS = 3_600_000

/** Data keys FCM refuses in a message (its reserved words and prefixes): never sent. */
const RESERVED_KEY = /^(from|notification|message_type|collapse_key)$|^(google|gcm)/i

export function pushData(n: { id: string; kind: string; data: Record<string, string | null> }): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(n.data)) if (v !== null && !RESERVED_KEY.test(k)) out[k] = v
  return { ...out, notificationId: n.id, kind: n.kind }
}

export async function runPushJob(deps: Deps, tenantId: string | null, payload: Record<string, unknown>): Promise<void> {
  const push = deps.push
  if (!push || !tenantId) return
  const notificationId = String(payload.notificationId)
  const attempt = Number(payload.attempt ?? 1)
  const n = await findNotification(deps.database.db, tenantId, notificationId)
  if (!n || n.pushedAt !== null) return
  const user = await findById(deps.database.db, tenantId, n.userId)
  if (!user || user.status !== 'active' || !user.fcmToken) return
  const token = user.fcmToken
  const { title, body } = renderNotification(n.kind, n.data, localeOf(user.locale))
  const outcome = await push.send({ token, title, body, data: pushData(n) })
  const now = deps.clock.now()
  const where = { notificationId, userId: user.id, kind: n.kind, attempt }
  switch (outcome.kind) {
    case 'sent':
      await deps.database.write((tx) => markPushed(tx, tenantId, notificationId, now))
      deps.logger.info('push sent', where)
      return
    case 'unregistered': {
      const dropped = await deps.database.write((tx) => dropFcmToken(tx, tenantId, user.id, token, now))
      deps.logger.warn('push token dropped: FCM does not know it', { ...where, reason: outcome.reason, dropped })
      return
    }
    case 'refused':
      deps.logger.error('push refused by FCM; not tried again', { ...where, status: outcome.status, reason: outcome.reason })
      return
    case 'retry': {
      if (attempt >= PUSH_ATTEMPTS) {
        deps.logger.error('push given up: FCM stayed unavailable', { ...where, reason: outcome.reason })
        return
      }
      const backoff = Math.min(1000 * 2 ** attempt, MAX_DELAY_MS)
      const asked = outcome.retryAfterSeconds !== undefined ? Math.min(outcome.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS) : 0
      const delay = Math.max(backoff, asked)
      deps.logger.warn('push not sent; trying again', { ...where, reason: outcome.reason, delayMs: delay })
      await deps.database.write((tx) => scheduleJob(tx, pushJob(tenantId, notificationId, attempt + 1, now + delay), now))
    }
  }
}
