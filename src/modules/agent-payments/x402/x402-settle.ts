/**
 * How an x402 payment ends (x402.ts pays it). Only the token decides: `succeeded` when it shows
 * the authorization used, with the transaction whose `AuthorizationUsed` event names it;
 * `failed` (its reservation and hold released) only when it shows it unused at a block whose
 * timestamp is at or past `validBefore`, since EIP-3009 compares with the block's time, not
 * ours. Until then the execution waits in `processing`, and the `agent_payments.x402.settle`
 * job looks again. Every decision re-reads the execution inside its write transaction and acts
 * only while it is still `processing` under the same authorization.
 */
import type { Hex } from 'viem'
import type { Deps } from '../../../deps'
import { scheduleJob } from '../../../jobs/outbox'
import { errorSummary } from '../../../lib/logger'
import { transactions } from '../../transactions'
import { systemScope, type Scope } from '../agents/credentials'
import { afterMandatePayment, moveExecution } from '../executions/moves'
import * as repo from '../repo'
import type { ExecutionRow } from '../schema'
import type { X402Record } from '../record-types'
import { X402_SETTLE_TOPIC } from '../topics'
import { chainOf, settleJob, type ChainView } from './x402-plan'

/**
 * How long after an authorization's `validBefore` the job first looks (a block or two to settle in),
 * and how soon it looks again when the chain cannot be read or is not past `validBefore` yet:
 * AGENT_PAYMENTS_X402_SETTLE_LOOK_MS, 5 s by default.
 */
export const settleLookMs = (deps: Deps) => deps.config.agentPaymentsX402SettleLookMs
/**
 * How long a settled payment's hold still counts once Slipway has seen the settlement: a spend
 * judged against balances read before the settling block would not see the transfer (reads come
 * just before their write, within an RPC time limit).
 */
const HOLD_AFTER_SETTLED_MS = 30_000
/** how far back the settling transaction is searched when the signing block was not recorded */
const LOG_LOOKBACK_BLOCKS = 5_000n

/** Whether the execution still waits on this authorization (nothing else decided it meanwhile). */
const stillWaiting = (row: ExecutionRow, record: X402Record | null) =>
  row.status === 'processing' && (!row.x402?.authorization || row.x402.authorization.nonce === record?.authorization?.nonce)

/**
 * Fails an execution still `processing`, keeping what the rail saw, its hold released (one
 * transaction). An execution that holds another authorization than `record`'s is left to the
 * settle job: only the chain ends a signed payment.
 */
export async function failX402(deps: Deps, scope: Scope, id: string, reason: string, record: X402Record | null): Promise<ExecutionRow> {
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (!stillWaiting(row, record)) return row
    const holdId = record?.holdId ?? row.x402?.holdId
    if (holdId) await transactions.releaseHold(tx, scope.tenantId, holdId, now)
    return moveExecution(tx, scope, row, { status: 'failed', failureReason: reason, completedAt: now, x402: record ?? row.x402 }, 'failed', now)
  })
}

/** `succeeded`, with the transaction that used the authorization (null if it could not be found), the mandate consumed or exhausted with it. */
async function succeedX402(deps: Deps, scope: Scope, id: string, txHash: string | null, record: X402Record): Promise<ExecutionRow> {
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (!stillWaiting(row, record)) return row
    if (record.holdId) await transactions.shortenHold(tx, scope.tenantId, record.holdId, now + HOLD_AFTER_SETTLED_MS)
    const after = await moveExecution(tx, scope, row, { status: 'succeeded', txHash, failureReason: null, completedAt: now, x402: record }, 'succeeded', now)
    if (row.mandateId) await afterMandatePayment(tx, scope, row.mandateId, now)
    return after
  })
}

type Outcome = { used: true; txHash: string | null } | { used: false; expired: boolean }

/**
 * What the token says of an authorization now. The head's timestamp is read before the state:
 * when it is at or past `validBefore` and the state (read at that head or later) is unused, no
 * later block can use it. The settling transaction is found by its event from the signing
 * block; a hash the resource reported is taken only if its own block holds that event.
 */
async function outcomeOf(deps: Deps, view: ChainView, record: X402Record): Promise<Outcome> {
  const a = record.authorization!
  const token = view.token.address as Hex
  const rpc = await deps.chain.evmRpc(view.endpoint)
  const read = <T>(what: string, fn: () => Promise<T>) => deps.chain.guard(view.endpoint, what, fn)
  const head = await read('block number', () => rpc.blockNumber())
  const headTime = await read('block time', () => rpc.blockTimestamp(head))
  const used = await read('authorization state', () => rpc.authorizationState(token, a.from as Hex, a.nonce as Hex))
  if (!used) return { used: false, expired: headTime >= BigInt(a.validBefore) }
  const from = record.fromBlock ? BigInt(record.fromBlock) : head > LOG_LOOKBACK_BLOCKS ? head - LOG_LOOKBACK_BLOCKS : 0n
  const found = await rpc.authorizationUsedBy(token, a.from as Hex, a.nonce as Hex, from).catch(() => null)
  if (found) return { used: true, txHash: found }
  const reported = record.settlement?.transaction
  if (reported && /^0x[0-9a-fA-F]{64}$/.test(reported)) {
    const receipt = await rpc.receipt(reported as Hex).catch(() => null)
    const inIt = receipt ? await rpc.authorizationUsedBy(token, a.from as Hex, a.nonce as Hex, receipt.blockNumber, receipt.blockNumber).catch(() => null) : null
    if (inIt && inIt.toLowerCase() === reported.toLowerCase()) return { used: true, txHash: inIt }
  }
  deps.logger.warn('x402 authorization used, its transaction not found', { nonce: a.nonce })
  return { used: true, txHash: null }
}

const settlementFrom = (record: X402Record, txHash: string | null): NonNullable<X402Record['settlement']> =>
  record.settlement?.success && txHash && record.settlement.transaction?.toLowerCase() === txHash.toLowerCase()
    ? record.settlement
    : { success: true, transaction: txHash, network: record.requirement?.network ?? null, payer: record.authorization!.from, errorReason: null, source: 'chain' }

/**
 * Right after paying: `succeeded` when the chain already shows the authorization used;
 * otherwise the execution keeps `reason` and waits (its settle job was scheduled when it was signed).
 */
export async function settleOrWait(deps: Deps, scope: Scope, view: ChainView, id: string, record: X402Record, reason: string): Promise<ExecutionRow> {
  const outcome = await outcomeOf(deps, view, record).catch((err: unknown) => {
    deps.logger.warn('x402 authorization state unreadable', { executionId: id, ...errorSummary(err) })
    return null
  })
  if (outcome?.used) return succeedX402(deps, scope, id, outcome.txHash, { ...record, settlement: settlementFrom(record, outcome.txHash) })
  const now = deps.clock.now()
  const until = new Date(Number(record.authorization!.validBefore) * 1000).toISOString()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (!stillWaiting(row, record)) return row
    const failureReason = `${reason}; the signed authorization can be settled until ${until}: the execution fails then unless it was`
    await repo.updateExecution(tx, scope.tenantId, id, { x402: record, updatedAt: now, failureReason })
    return { ...row, x402: record, updatedAt: now, failureReason }
  })
}

/** The `agent_payments.x402.settle` job: used → `succeeded`; unused at a block past `validBefore` → `failed` and released; else later. */
export async function settleX402(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>): Promise<void> {
  const id = String(payload.executionId)
  const row = tenantId ? await repo.findExecution(deps.database.db, tenantId, id) : undefined
  if (!tenantId || !row || row.status !== 'processing' || !row.x402?.authorization) return
  const scope = await systemScope(deps, tenantId, `job:${X402_SETTLE_TOPIC}:${id}`)
  const later = (at: number) => deps.database.write((tx) => scheduleJob(tx, settleJob(tenantId, id, at), deps.clock.now()))
  const view = await chainOf(scope, row)
  let outcome: Outcome | null = null
  try {
    if (view) outcome = await outcomeOf(deps, view, row.x402)
  } catch (err) {
    deps.logger.warn('x402 authorization state unreadable; looking again', { executionId: id, ...errorSummary(err) })
  }
  if (outcome?.used) {
    await succeedX402(deps, scope, id, outcome.txHash, { ...row.x402, settlement: settlementFrom(row.x402, outcome.txHash) })
    return
  }
  if (outcome?.expired) {
    const reason = row.failureReason?.split('; the signed authorization')[0] ?? 'X402_NOT_SETTLED: The resource did not settle the payment'
    await failX402(deps, scope, id, reason, row.x402)
    return
  }
  // not readable, or not past validBefore on chain yet (a node behind, or block times coarser than seconds)
  const now = deps.clock.now()
  await later(Math.max(now + settleLookMs(deps), Number(row.x402.authorization.validBefore) * 1000 + settleLookMs(deps)))
}
