/**
 * The notifications module's entry point for producers: a module that tells a user about a
 * change calls `notify` and nothing else of this module, inside the same write transaction
 * as the change (`deps.database.write(async (tx) => { ...change...; await notify(deps, tx,
 * {...}) })`), so the inbox row exists exactly when the change does. The push to the user's
 * device is a job scheduled right there too (src/jobs/outbox.ts), sent after the commit;
 * without FCM configured no job is scheduled and the inbox still fills.
 *
 * Callers notify once per transition: they call it only when their own conditional write
 * changed the record (the status moved), so a repeat or a race writes nothing twice.
 */
import type { Tx } from '../../db/client'
import type { Deps } from '../../deps'
import { scheduleJob } from '../../jobs/outbox'
import { newId } from '../../lib/ids'
import { insertNotification } from './repo'
import { pushJob } from './topics'

export const NOTIFICATION_KINDS = [
  'transaction.confirmed',
  'transaction.failed',
  'transfer.incoming',
  'ramp.kyc',
  'ramp.deposit',
  'ramp.payout',
  'card_onramp.updated',
] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

/**
 * Only strings (or null) are stored, so no amount ever reaches a client as a JSON number:
 * a number, bigint or boolean a caller passes despite the type is kept as its text.
 */
function textOnly(data: Record<string, unknown>): Record<string, string | null> {
  const out: Record<string, string | null> = {}
  for (const [key, v] of Object.entries(data)) {
    if (v === undefined) continue
    if (v === null || typeof v === 'string') out[key] = v
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') out[key] = String(v)
    else throw new TypeError(`notification data.${key} must be a string or null`)
  }
  return out
}

/**
 * Writes the notification in the caller's transaction and, when FCM is configured, schedules
 * its push. `data`: ids, chain, statuses; amounts as integer or decimal text, never numbers
 * (docs/notifications.md lists each kind's keys).
 */
export async function notify(deps: Deps, tx: Tx, n: { tenantId: string; userId: string; kind: NotificationKind; data: Record<string, string | null> }): Promise<void> {
  const now = deps.clock.now()
  const id = newId()
  await insertNotification(tx, n.tenantId, { id, userId: n.userId, kind: n.kind, data: textOnly(n.data), createdAt: now, readAt: null, pushedAt: null })
  // The job reads the device token and the language when it runs: a token registered after
  // this commit still gets the push, one removed meanwhile does not.
  if (deps.push) await scheduleJob(tx, pushJob(n.tenantId, id, 1, now), now)
}
