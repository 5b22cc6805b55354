/**
 * An execution's reads kept for the next execution of the same agent and merchant in this process
 * (docs/benchmarks.md, "What a write costs where"): with them kept, an execution sends a server one request, its write batch, instead of
 * a read batch and then the write. Nothing kept is trusted: the write batch re-checks every read it
 * judged from at the primary (reserve.ts: the agent to its `updated_at`, its wallet, the policy's
 * version, the merchant, the merchants at the payee's address, the webhooks its events go to, and
 * the limits' running totals), so a change made anywhere since fails the batch, which writes nothing;
 * the kept reads are then dropped and the execution runs again from reads made now. Reads are kept
 * only after a batch judged from them went through (they held at the primary then), for KEEP_MS.
 * Not kept: executions under a mandate (its totals move with each payment under it).
 *
 * Idempotency keys: a key this process saw used answers its execution from one read (a replay
 * needs nothing else); another key goes straight to the write, where the tenant's unique index
 * refuses a key used elsewhere and the execution is answered as it is (executions.ts).
 */
import type { ExecutionReads } from './reads'

const KEEP_MS = 2_000
const MAX_ENTRIES = 10_000

const kept = new Map<string, { reads: ExecutionReads; until: number }>()
const usedKeys = new Set<string>()

const readsKey = (tenantId: string, input: { agentId: string; merchantId?: string }) => `${tenantId}\n${input.agentId}\n${input.merchantId ?? ''}`

/** The reads kept for this agent and merchant, if fresh enough (never for a mandate's execution). */
export function keptReads(tenantId: string, input: { agentId: string; merchantId?: string; mandateId?: string }): ExecutionReads | undefined {
  if (input.mandateId !== undefined) return undefined
  const k = readsKey(tenantId, input)
  const e = kept.get(k)
  if (!e) return undefined
  if (e.until < Date.now()) {
    kept.delete(k)
    return undefined
  }
  return e.reads
}

/** Keeps reads a batch judged from went through with (not those of a mandate's execution). */
export function keepReads(tenantId: string, input: { agentId: string; merchantId?: string; mandateId?: string }, reads: ExecutionReads) {
  if (input.mandateId !== undefined || reads.mandate) return
  if (kept.size >= MAX_ENTRIES) kept.clear()
  kept.set(readsKey(tenantId, input), { reads: { ...reads, seen: undefined }, until: Date.now() + KEEP_MS })
}

export function dropReads(tenantId: string, input: { agentId: string; merchantId?: string }) {
  kept.delete(readsKey(tenantId, input))
}

/** Whether this process saw the tenant's idempotency key used (an execution made or answered with it). */
export const keyUsed = (tenantId: string, key: string) => usedKeys.has(`${tenantId}\n${key}`)

export function markKeyUsed(tenantId: string, key: string | undefined) {
  if (key === undefined) return
  if (usedKeys.size >= MAX_ENTRIES * 5) usedKeys.clear()
  usedKeys.add(`${tenantId}\n${key}`)
}
