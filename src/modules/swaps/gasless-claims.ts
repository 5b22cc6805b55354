/**
 * The relayer's bounds (docs/swaps.md "The relayer's bounds"): before the shared relayer spends
 * any gas on a gasless swap, the relay is claimed in one write that
 * - refuses a second live relay of the same quote, or of the same permit (token, owner, nonce:
 *   on chain a permit's nonce is used once, so a second copy can only revert at the relayer's
 *   cost): 409 `SWAP_GASLESS_ALREADY_RELAYED`;
 * - counts the relay's gas (its limit × max fee) against the tenant's and the user's budgets for
 *   the UTC day, in the same write, so concurrent requests cannot pass them together: 429
 *   `SWAP_GASLESS_TENANT_DAILY_LIMIT` / `SWAP_GASLESS_USER_DAILY_LIMIT`.
 * The claim becomes `sent` in the transactions module's write that records the relayed send
 * (`attachRelay`), only while it is still held, so nothing is sent on a claim taken over; a relay
 * that comes to nothing before that releases it (`releaseRelay`), and one whose transaction
 * failed frees the quote and the nonce for another try.
 */
import type { Ctx } from '../../context'
import { uniqueViolation, type Executor, type Tx } from '../../db/client'
import { AppError, ConflictError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { findTransaction } from '../transactions'
import * as repo from './repo'

const DAY_MS = 86_400_000
/**
 * A claim still `claimed` this long after it was written belongs to a process that stopped
 * before its send: taken over. Every step between the claim and the send (simulation, balance,
 * estimate) has a time limit well below it, and a claim taken over can no longer be sent.
 */
const STALE_CLAIM_MS = 120_000

export interface RelayClaim {
  id: string
  tenantId: string
}

export interface ClaimInput {
  tenantId: string
  userId: string
  quoteId: string
  network: string
  token: string
  owner: string
  permitNonce: bigint
  /** the most the relay can cost the relayer, wei */
  gasCost: bigint
}

const alreadyRelayed = (what: 'quote' | 'permit', transactionId?: string | null) => new ConflictError(
  what === 'quote'
    ? 'This quote is already being relayed or was relayed: a quote is relayed once. Follow the swap\'s transaction, or ask for a new quote with POST /v1/swap/quote'
    : 'A relay of this permit (the wallet\'s current permit nonce for this token) is already in flight or done: wait for it to settle, then ask for a new quote',
  { code: 'SWAP_GASLESS_ALREADY_RELAYED', ...(transactionId ? { details: { transactionId } } : {}) },
)

function overBudget(scope: 'tenant' | 'user', now: number, dayStart: number) {
  const err = new AppError(429, 'TooManyRequestsError',
    scope === 'tenant'
      ? 'The gasless relayer\'s daily budget for this tenant is used up: gasless swaps resume at 00:00 UTC. Swap with POST /v1/swap/execute from a wallet holding gas meanwhile'
      : 'Your daily budget of gasless swaps is used up: they resume at 00:00 UTC. Swap with POST /v1/swap/execute from a wallet holding gas meanwhile',
    { code: scope === 'tenant' ? 'SWAP_GASLESS_TENANT_DAILY_LIMIT' : 'SWAP_GASLESS_USER_DAILY_LIMIT' })
  return Object.assign(err, { retryAfterSeconds: Math.ceil((dayStart + DAY_MS - now) / 1000) })
}

/** Whether a live claim still holds: a fresh `claimed` one, or a `sent` one whose transaction has not failed. */
async function stillHeld(db: Executor, row: repo.SwapRelayRow, now: number): Promise<boolean> {
  if (row.status === 'claimed') return row.updatedAt > now - STALE_CLAIM_MS
  const t = row.transactionId ? await findTransaction(db, row.tenantId, row.transactionId) : undefined
  return !!t && t.status !== 'failed'
}

/** stillHeld, and a claim that no longer holds freed: released (never sent) or failed (its gas stays counted, the quote and the nonce are free again). */
async function holds(tx: Tx, row: repo.SwapRelayRow, now: number): Promise<boolean> {
  if (await stillHeld(tx, row, now)) return true
  await repo.moveClaim(tx, row.tenantId, row.id, [row.status], row.status === 'claimed' ? 'released' : 'failed', now)
  return false
}

/**
 * The 409 for a quote already relayed (or in flight), when it is: read before anything else of
 * a relay is checked, so a late copy of a permit whose nonce its relay used is told so rather
 * than that its signature no longer matches. The claim's write decides races.
 */
export async function quoteRelayed(ctx: Ctx, tenantId: string, userId: string, quoteId: string) {
  const row = await repo.liveQuoteClaim(ctx.deps.database.db, tenantId, userId, quoteId)
  return row && (await stillHeld(ctx.deps.database.db, row, ctx.deps.clock.now())) ? alreadyRelayed('quote', row.transactionId) : null
}

/** Claims the relay, or refuses it (409 duplicate, 429 over a daily budget); nothing is spent yet. */
export async function claimRelay(ctx: Ctx, c: ClaimInput): Promise<RelayClaim> {
  const { deps } = ctx
  const now = deps.clock.now()
  const dayStart = now - (now % DAY_MS)
  const id = newId()
  const permit = { network: c.network, token: c.token.toLowerCase(), owner: c.owner.toLowerCase(), permitNonce: c.permitNonce.toString() }
  try {
    await deps.database.write(async (tx) => {
      const byQuote = await repo.liveQuoteClaim(tx, c.tenantId, c.userId, c.quoteId)
      if (byQuote && (await holds(tx, byQuote, now))) throw alreadyRelayed('quote', byQuote.transactionId)
      const byPermit = await repo.livePermitClaim(tx, permit)
      // another tenant's claim is named by nothing in the answer
      if (byPermit && (await holds(tx, byPermit, now))) throw alreadyRelayed('permit')
      const tenantSpent = await repo.spentSince(tx, c.tenantId, null, dayStart)
      if (tenantSpent + c.gasCost > BigInt(deps.config.swapGaslessDailyGasPerTenantWei)) throw overBudget('tenant', now, dayStart)
      const userSpent = await repo.spentSince(tx, c.tenantId, c.userId, dayStart)
      if (userSpent + c.gasCost > BigInt(deps.config.swapGaslessDailyGasPerUserWei)) throw overBudget('user', now, dayStart)
      await repo.insertClaim(tx, {
        id, tenantId: c.tenantId, userId: c.userId, quoteId: c.quoteId, ...permit, gasCost: c.gasCost.toString(),
        status: 'claimed', transactionId: null, createdAt: now, updatedAt: now,
      })
    })
  } catch (err) {
    // another process claimed it between our read and our insert (its write came first)
    const index = uniqueViolation(err)
    if (index.startsWith('swap_relays.')) throw alreadyRelayed(index.includes('quote_id') ? 'quote' : 'permit')
    throw err
  }
  return { id, tenantId: c.tenantId }
}

/**
 * In the transactions module's write that records the relayed send: the claim becomes `sent`
 * with its transaction, only while it is still held; otherwise the write is undone and nothing sent.
 */
export async function attachRelay(tx: Tx, claim: RelayClaim, transactionId: string, now: number) {
  if (!(await repo.moveClaim(tx, claim.tenantId, claim.id, ['claimed'], 'sent', now, transactionId))) {
    throw new ConflictError('This relay\'s claim was taken over by another request: nothing was sent', { code: 'SWAP_GASLESS_ALREADY_RELAYED' })
  }
}

/** After a relay came to nothing: its claim released (nothing sent), or marked failed (its transaction failed). */
export async function releaseRelay(ctx: Ctx, claim: RelayClaim) {
  const now = ctx.deps.clock.now()
  await ctx.deps.database.write(async (tx) => {
    const row = await repo.findClaim(tx, claim.tenantId, claim.id)
    if (!row) return
    if (row.status === 'claimed') await repo.moveClaim(tx, row.tenantId, row.id, ['claimed'], 'released', now)
    else if (row.status === 'sent') await holds(tx, row, now)
  })
}
