/**
 * Executions (routes 37-43; approvals 44-47: approvals.ts): an agent's payment judged by its policy and
 * reserved against its limits in one write transaction (judging.ts), then paid on the
 * `onchain` rail (pay.ts). Decisions: docs/agent-payments.md, "Executions".
 */
import { uniqueViolation } from '../../../db/client'
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors'
import type { ErrorCode } from '../../../lib/error-codes'
import { newId } from '../../../lib/ids'
import { AddressRefused, checkSubscriptionUrl } from '../../webhooks'
import { lookupChain } from '../../tokens'
import { seenAgent } from '../agents/agents'
import type { Scope } from '../agents/credentials'
import type { CreateExecution, ExecutionListQuery } from './execution-model'
import { moveExecution, payExecution } from './pay'
import { readForExecution, type ExecutionReads } from './reads'
import { dropReads, keepReads, keptReads, keyUsed, markKeyUsed } from './read-keep'
import { reserveInOneBatch } from './reserve'
import { reserveInTransaction } from './reserve-in-transaction'
import { toUnits, fromUnits } from '../policies/policy'
import { moveApproval } from './approvals'
import { judgeAgain } from '../policies/judging'
import * as repo from '../repo'
import type { AgentRow, ExecutionRow } from '../schema'
import type { ExecutionStatus } from '../record-types'
import { executionView } from '../views'
import { prose } from '../../../http/prose'

const executionNotFound = () => new NotFoundError('Execution not found')
const bad = (code: ErrorCode, message: string) => new BadRequestError(message, { code })

/** The execution, when the scope may see it: an agent key sees only its own agent's. */
async function visibleExecution(scope: Scope, id: string): Promise<ExecutionRow> {
  const row = await repo.findExecution(scope.deps.database.db, scope.tenantId, id)
  if (!row || (scope.agentId !== undefined && row.agentId !== scope.agentId)) throw executionNotFound()
  return row
}

/**
 * The x402 rail's resource, checked by the rules of a webhook address (https on 443, a public
 * DNS name; hosts of WEBHOOK_DEV_ROUTES allowed under reserved names); resolved to public
 * addresses again at each request (x402-transport.ts). Null on the onchain rail.
 */
function resourceUrlOf(scope: Scope, input: CreateExecution): string | null {
  if (input.rail === 'onchain') {
    if (!input.merchantId) throw bad('MERCHANT_REQUIRED', 'An onchain execution pays a merchant: merchantId is required')
    if (input.resourceUrl !== undefined) throw bad('RESOURCE_URL_X402_ONLY', 'resourceUrl is for the x402 rail')
    return null
  }
  if (input.resourceUrl === undefined) throw bad('RESOURCE_URL_REQUIRED', 'An x402 execution pays for a resource: resourceUrl is required')
  try {
    return checkSubscriptionUrl(scope.deps, input.resourceUrl)
  } catch (err) {
    if (err instanceof AddressRefused) throw new BadRequestError(prose`
      resourceUrl is refused: ${err.message.replace(/^The address/, 'the address')}`, { code: 'RESOURCE_URL_REFUSED', details: { reason: err.reason } })
    throw err
  }
}

/** What the request names, checked against the reads: the agent, mandate and merchant, the network, its token and the amount in units. */
function planOf(scope: Scope, input: CreateExecution, reads: ExecutionReads) {
  const agent0 = seenAgent(scope, input.agentId, reads.agent)
  const { mandate: mandate0, merchant: merchant0, wallet } = reads
  if (input.mandateId !== undefined && !mandate0) throw new NotFoundError('Mandate not found', { code: 'MANDATE_NOT_FOUND' })
  const resourceUrl = resourceUrlOf(scope, input)
  if (input.merchantId !== undefined && !merchant0) throw new NotFoundError('Merchant not found', { code: 'MERCHANT_NOT_FOUND' })
  const walletNetwork = wallet && lookupChain(wallet.chain) ? (wallet.isTestnet ? lookupChain(wallet.chain)!.chain.testnet.id : wallet.chain) : null
  // the onchain rail pays the merchant's payTo network; x402 the network the agent's wallet is on, unless told
  const network = input.network ?? merchant0?.payToNetwork ?? walletNetwork ?? ''
  const resolved = lookupChain(network)
  if (!resolved || resolved.network.id !== network) throw bad('NETWORK_UNKNOWN', `Unknown network ${network}`)
  if (merchant0 && network !== merchant0.payToNetwork) throw bad('NETWORK_MISMATCH', `The merchant is paid on ${merchant0.payToNetwork}, not ${network}`)
  if (walletNetwork !== network) throw bad('NETWORK_MISMATCH', `The agent's wallet is on ${walletNetwork ?? 'no network'}, not ${network}`)
  if (input.rail === 'x402' && resolved.chain.family !== 'evm') throw bad('RAIL_NETWORK_UNSUPPORTED', `The x402 rail pays on EVM networks (an EIP-3009 authorization), not ${network}`)
  const token = resolved.network.tokens.find((tk) => tk.symbol.toUpperCase() === input.currency.toUpperCase() && tk.address !== null)
  if (!token) throw bad('CURRENCY_NOT_ON_NETWORK', `${input.currency} is not a token of ${network} in the registry`)
  const units = toUnits(input.amount)
  if (units % 10n ** BigInt(18 - token.decimals) !== 0n) throw bad('AMOUNT_PRECISION', `${token.symbol} has ${token.decimals} decimals`)
  return { agent0, mandate0, merchant0, wallet, network, token, units, resourceUrl }
}

/** batches tried while their conditions fail, before the interactive way */
const BATCH_ATTEMPTS = 3

/** the statuses with a receipt: paid (refunds are merchant-side records) */
const PAID: ExecutionStatus[] = ['succeeded', 'refunded', 'partially_refunded']

/**
 * Route 37. `{ execution, created }`: `created` false when the tenant already has an execution
 * with this `idempotencyKey` (answered unchanged, nothing else compared). `fresh`: every read made
 * now (the execution runs again after reads kept from an earlier one no longer held).
 */
export async function createExecution(scope: Scope, input: CreateExecution, fresh = false): Promise<{ execution: ReturnType<typeof executionView>; created: boolean }> {
  const db = scope.deps.database.db
  const key = input.idempotencyKey
  const t = scope.tenantId
  const replay = async () => {
    const row = key ? await repo.findExecutionByKey(scope.deps.database.db, t, key) : undefined
    // an agent key never reads another agent's execution, even by its key
    if (row && scope.agentId !== undefined && row.agentId !== scope.agentId) throw new ConflictError('This idempotencyKey is used by another agent\'s execution', { code: 'IDEMPOTENCY_KEY_IN_USE' })
    markKeyUsed(t, key)
    return row
  }
  // a key this process saw used: its execution is answered from that one read (read-keep.ts)
  if (key && !fresh && keyUsed(t, key)) {
    const again = await replay()
    if (again) return { execution: executionView(again), created: false }
  }
  // every read before the write at once (reads.ts: one request to a server), answered in this order; or
  // kept from an execution of the same agent and merchant (read-keep.ts), each re-checked by the write
  const keptAs = fresh ? undefined : keptReads(t, input)
  const reads = keptAs ?? await readForExecution(scope, input)
  const seen = reads.seen
  if (seen) markKeyUsed(t, key)
  if (seen && scope.agentId !== undefined && seen.agentId !== scope.agentId) throw new ConflictError('This idempotencyKey is used by another agent\'s execution', { code: 'IDEMPOTENCY_KEY_IN_USE' })
  if (seen) return { execution: executionView(seen), created: false }
  let plan: ReturnType<typeof planOf>
  try {
    plan = planOf(scope, input, reads)
  } catch (err) {
    // refused from kept reads: again from reads made now (read-keep.ts)
    if (!keptAs) throw err
    dropReads(t, input)
    return createExecution(scope, input, true)
  }
  const { agent0, mandate0, merchant0, wallet, network, token, units, resourceUrl } = plan

  const rowAt = (agent: AgentRow, now: number) => ({
    id: newId(), tenantId: scope.tenantId, agentId: agent.id, merchantId: merchant0?.id ?? null, mandateId: mandate0?.id ?? null,
    amount: fromUnits(units), currency: token.symbol, rail: input.rail, network, payToAddress: merchant0?.payToAddress ?? null, description: input.description ?? null,
    resourceUrl, x402: null, idempotencyKey: key ?? null, environment: agent.environment,
    transactionId: null, txHash: null, failureReason: null, refundedAmount: '0', createdAt: now, countedAt: now, updatedAt: now,
  })
  let out: { row: ExecutionRow; fresh: boolean } | undefined
  try {
    // one request to the primary (reserve.ts); judged again from fresh reads while its conditions fail, then the interactive way
    for (let attempt = 0; attempt < BATCH_ATTEMPTS && !out; attempt++) {
      const agent = attempt === 0 ? agent0 : await repo.findAgent(db, scope.tenantId, agent0.id)
      const mandate = attempt === 0 || !mandate0 ? mandate0 : await repo.findMandate(db, scope.tenantId, mandate0.id)
      if (!agent || (mandate0 && !mandate)) break
      const now = scope.deps.clock.now()
      const reserveInput = { agent, wallet, merchant: merchant0, mandate, amount: input.amount, currency: input.currency, rail: input.rail, network, row: rowAt(agent, now) }
      // the first try judges without reading what the limits hold (the batch's conditions check them at the primary)
      const r = await reserveInOneBatch(scope, reserveInput, now, attempt > 0, attempt === 0 ? reads.judging : undefined)
      // kept reads that judged a refusal, or whose conditions failed (nothing written), are dropped
      if (keptAs && (r === 'refused' || r === 'stale')) dropReads(t, input)
      // a refusal is judged again in the write transaction; a batch from kept reads that failed runs again from reads made now
      if (keptAs && r === 'stale') return createExecution(scope, input, true)
      if (r === 'refused') break
      if (r !== 'stale') out = { row: r, fresh: true }
      // reads a batch went through with held at the primary: kept for the next execution
      if (attempt === 0 && r !== 'stale') keepReads(t, input, reads)
    }
    out ??= await reserveInTransaction(scope, { input, key, agent0, merchant0, mandate0, network, rowAt })
  } catch (err) {
    // another request inserted the same key between our read and our insert
    if (key && uniqueViolation(err).includes('idempotency_key')) {
      const other = await replay()
      if (other) return { execution: executionView(other), created: false }
    }
    throw err
  }
  let row = out.row
  markKeyUsed(t, key)
  if (!out.fresh) {
    if (scope.agentId !== undefined && row.agentId !== scope.agentId) throw new ConflictError('This idempotencyKey is used by another agent\'s execution', { code: 'IDEMPOTENCY_KEY_IN_USE' })
    return { execution: executionView(row), created: false }
  }
  if (row.status === 'processing') row = await payExecution(scope.deps, scope.tenantId, row.id, scope)
  return { execution: executionView(row), created: true }
}

export async function listExecutions(scope: Scope, q: ExecutionListQuery) {
  const { rows, total } = await repo.listExecutions(scope.deps.database.db, scope.tenantId, { ...q, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(executionView), total }
}

export async function getExecution(scope: Scope, id: string) {
  return executionView(await visibleExecution(scope, id))
}

/** Route 41: from `pending`, `requires_approval` or `requires_confirmation`; its pending approval is canceled with it. */
export async function cancelExecution(scope: Scope, id: string) {
  await visibleExecution(scope, id)
  const now = scope.deps.clock.now()
  const after = await scope.deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (!['pending', 'requires_approval', 'requires_confirmation'].includes(row.status)) throw new ConflictError(`An execution ${row.status} cannot be canceled`, { code: 'EXECUTION_STATE_INVALID' })
    const approval = await repo.approvalOfExecution(tx, scope.tenantId, id)
    if (approval?.status === 'pending') await moveApproval(tx, scope, approval, { decidedAt: now, decidedBy: scope.actor.id }, 'canceled', row.environment, now)
    return moveExecution(tx, scope, row, { status: 'canceled', completedAt: now }, 'canceled', now)
  })
  return executionView(after)
}

/** Route 42: a merchant-side refund record (no money moves here): `refunded` when the whole amount is refunded, else `partially_refunded`. */
export async function refundExecution(scope: Scope, id: string, input: { amount?: string }) {
  await visibleExecution(scope, id)
  const now = scope.deps.clock.now()
  const after = await scope.deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (!['succeeded', 'partially_refunded'].includes(row.status)) throw new ConflictError(`An execution ${row.status} cannot be refunded`, { code: 'EXECUTION_STATE_INVALID' })
    const left = toUnits(row.amount) - toUnits(row.refundedAmount)
    const amount = input.amount === undefined ? left : toUnits(input.amount)
    if (amount === 0n) throw bad('AMOUNT_INVALID', 'A refund must be more than 0')
    if (amount > left) throw bad('REFUND_TOO_LARGE', `At most ${fromUnits(left)} ${row.currency} is left to refund`)
    const refunded = toUnits(row.refundedAmount) + amount
    const status: ExecutionStatus = refunded === toUnits(row.amount) ? 'refunded' : 'partially_refunded'
    return moveExecution(tx, scope, row, { status, refundedAmount: fromUnits(refunded) }, 'refunded', now)
  })
  return executionView(after)
}

/** Route 43: a final execution's receipt (the onchain send, or the x402 settlement); 404 `RECEIPT_NOT_READY` before. */
export async function receiptOf(scope: Scope, id: string) {
  const row = await visibleExecution(scope, id)
  if (!PAID.includes(row.status) || !row.txHash || (row.rail === 'onchain' && !row.transactionId)) {
    throw new NotFoundError('No receipt: the execution has not been paid', { code: 'RECEIPT_NOT_READY' })
  }
  const x = row.x402
  return {
    executionId: row.id, agentId: row.agentId, merchantId: row.merchantId, amount: row.amount, currency: row.currency, rail: row.rail,
    network: row.network!, to: row.payToAddress!, transactionId: row.transactionId, txHash: row.txHash,
    status: row.status, refundedAmount: row.refundedAmount, policyId: row.policyId, policyVersion: row.policyVersion,
    paidAt: new Date(row.completedAt ?? row.updatedAt).toISOString(),
    x402: row.rail === 'x402' && x?.authorization && x.requirement ? {
      resourceUrl: row.resourceUrl!, network: x.settlement?.network ?? x.requirement.network, transaction: row.txHash,
      payer: x.settlement?.payer ?? x.authorization.from, payTo: x.authorization.to, asset: x.requirement.asset, amount: x.authorization.value,
      nonce: x.authorization.nonce, settledBy: x.settlement?.source ?? 'chain',
    } : null,
  }
}

/**
 * Route 40: the human of a human-present mandate confirms: `requires_confirmation →
 * processing`, the limits and the mandate judged again in the confirming transaction (409
 * `CONFIRMATION_LIMIT_EXCEEDED` with the reasons when the payment no longer passes; it keeps
 * waiting), then paid.
 */
export async function confirmExecution(scope: Scope, id: string) {
  await visibleExecution(scope, id)
  const now = scope.deps.clock.now()
  const execution = await scope.deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'requires_confirmation') throw new ConflictError(`An execution ${row.status} cannot be confirmed`, { code: 'EXECUTION_STATE_INVALID' })
    // judged again now, in the windows containing now, and counted there from now on (`countedAt`)
    const j = await judgeAgain(tx, scope.tenantId, row, now)
    if (j.decision === 'deny') throw new ConflictError('The payment no longer passes its policy or mandate', { code: 'CONFIRMATION_LIMIT_EXCEEDED', details: { reasons: j.reasons } })
    return moveExecution(tx, scope, row, { status: 'processing', countedAt: now }, 'processing', now)
  })
  return executionView(await payExecution(scope.deps, scope.tenantId, execution.id, scope))
}
