/**
 * ERC-7677 sponsorships settled. The app sends an operation Slipway's paymaster signed through a
 * bundler of its choosing, so nothing tells Slipway what became of it: a job per sponsorship,
 * scheduled in the write that reserved it, asks the network's bundler for the operation's receipt
 * (`eth_getUserOperationReceipt`, read from the chain's logs, whichever bundler sent it). With a
 * receipt the sponsorship counts what it cost (`actualGasCost`, reverted or not: the paymaster
 * paid); with none once the signature has run out (validUntil, plus a grace for clock skew and
 * the receipt's indexing) and the sender's EntryPoint nonce unused, it can never run: its
 * reservation is released, and the user's day and the tenant's month count nothing for it.
 * Otherwise the job looks again later (checks spaced out, never past the release point). A
 * nonce used without a receipt to show for it (another operation took it, or the bundler's
 * log search missed it) is looked at again until an hour after the window, then counted at its
 * maximum: what the paymaster may have paid, never less.
 */
import type { Hex } from 'viem'
import { BundlerError } from '../../adapters/bundler'
import type { Deps } from '../../deps'
import { scheduleJob } from '../../jobs/outbox'
import { findTenant, settingsOf } from '../tenants'
import { sponsorFor } from './network'
import { findSponsorship } from './repo'
import { releaseSponsorship, settleSponsorship } from './sponsorship'
import { SETTLE_TOPIC } from './topics'
import { SPACING_MS } from './settle-schedule'

export { scheduleSettle } from './settle-schedule'

/** after the signature's end (s): a block stamped within it may still show up */
export const RELEASE_GRACE_S = 30
/** after the signature's end (s): a used nonce without a receipt is counted at its maximum */
const GIVE_UP_S = 3600

export type SettleOutcome = 'settled' | 'released' | 'counted at maximum' | 'again' | 'closed'

/** One look at sponsorship `id` of the tenant: settles, releases, or schedules the next look. */
export async function settleErc7677(deps: Deps, tenantId: string, id: string, checks: number): Promise<SettleOutcome> {
  const s = await findSponsorship(deps.database.db, tenantId, id)
  if (!s || s.status !== 'reserved' || !s.userOpHash) return 'closed'
  const tenant = await findTenant(deps.database.db, tenantId)
  const sponsor = await sponsorFor(deps, tenant ? settingsOf({ deps }, tenant) : null, s.network)
  const now = deps.clock.now()
  const nowS = Math.floor(now / 1000)
  let outcome: SettleOutcome = 'again'
  try {
    const receipt = await sponsor.gateway.receipt(sponsor.endpoint, s.userOpHash as Hex)
    if (receipt) {
      await deps.database.write((tx) => settleSponsorship(tx, tenantId, id, receipt.actualGasCost, now))
      outcome = 'settled'
    } else if (nowS > s.validUntil + RELEASE_GRACE_S) {
      if (!(await sponsor.gateway.nonceUsed(sponsor.endpoint, s.sender as Hex, BigInt(s.nonce)))) {
        await deps.database.write((tx) => releaseSponsorship(tx, tenantId, id, now))
        outcome = 'released'
      } else if (nowS > s.validUntil + GIVE_UP_S) {
        deps.logger.warn('an ERC-7677 sponsorship has no receipt but its nonce was used: counted at its maximum', { tenantId, sponsorshipId: id })
        await deps.database.write((tx) => settleSponsorship(tx, tenantId, id, BigInt(s.maxCostWei), now))
        outcome = 'counted at maximum'
      }
    }
  } catch (err) {
    // the bundler or the node cannot answer now: look again later
    if (!(err instanceof BundlerError) && !/HttpRequestError|TimeoutError|fetch failed/i.test(`${(err as Error).name} ${(err as Error).message}`)) throw err
  }
  if (outcome !== 'again') return outcome
  const spacing = SPACING_MS[Math.min(checks, SPACING_MS.length - 1)]!
  const releaseAt = (s.validUntil + RELEASE_GRACE_S + 1) * 1000
  const runAt = now < releaseAt ? Math.min(now + spacing, releaseAt) : now + spacing
  await deps.database.write((tx) => scheduleJob(tx, { topic: SETTLE_TOPIC, tenantId, payload: { id, checks: checks + 1 }, runAt, id: `gas-settle:${id}:${checks + 1}` }, now))
  return 'again'
}
