/**
 * The `x402` rail (x402 protocol v2, the x402 Foundation's `@x402/fetch`, `@x402/core` and
 * `@x402/evm`): Slipway fetches the execution's `resourceUrl` for the agent, reads the `402
 * Payment Required` requirements, refuses every requirement the judged execution does not allow
 * (x402-checks.ts) before anything is signed, signs the EIP-3009 `transferWithAuthorization` of
 * the one chosen with the agent's custodial key, and retries with the payment header.
 *
 * Money first: the signed authorization is stored, its amount held against the wallet's balance
 * (holds.ts) and a check scheduled at its expiry, in one write transaction, before the header is
 * sent. The execution `succeeded` only when the token says the authorization was used
 * (`authorizationState`), with the transaction that used it. When the resource does not settle
 * (a second 402, no answer, an error), the execution waits in `processing` until the
 * authorization expires, since whoever holds it can still settle it until then: the job then
 * finds it used (`succeeded`) or not (`failed`, the reservation and the hold released). A payment
 * stopped before anything was sent fails at once.
 */
import { x402Client } from '@x402/core/client'
import type { PaymentRequirements } from '@x402/core/types'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { bytesToHex, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Deps } from '../../deps'
import { AppError } from '../../http/errors'
import { scheduleJob } from '../../jobs/outbox'
import { errorSummary } from '../../lib/logger'
import { findTenant } from '../tenants/repo'
import type { StoredSettings } from '../tenants/settings'
import { settingsOf } from '../tenants/service'
import { endpointFor, lookupChain } from '../tokens/registry'
import { placeHold, releaseHold, walletBalances } from '../transactions/holds'
import { isCustodial, walletSecret } from '../transactions/shared'
import { findWallet } from '../wallets/repo'
import type { WalletRow } from '../wallets/schema'
import type { Scope } from './credentials'
import { afterMandatePayment, moveExecution } from './moves'
import { fromUnits, toUnits } from './policy'
import * as repo from './repo'
import type { ExecutionRow, X402Record } from './schema'
import { X402_SETTLE_TOPIC } from './topics'
import { refusalsOf, requirementOf, signingRefusal, type Allowed } from './x402-checks'
import { keptAnswer, resourceFetch, X402Stop, type ResourceAnswer } from './x402-transport'

/** how long after an authorization's `validBefore` the job looks (a block or two to settle in) */
const SETTLE_GRACE_MS = 5_000
/** how far back the transaction that used an authorization is searched */
const LOG_LOOKBACK_BLOCKS = 5_000n

const systemScope = (deps: Deps, tenantId: string, requestId: string): Scope => ({ deps, tenantId, actor: { type: 'system', id: null }, requestId })
const settleJob = (tenantId: string, executionId: string, runAt: number) =>
  ({ id: `ap-x402-settle:${executionId}:${runAt}`, topic: X402_SETTLE_TOPIC, tenantId, payload: { executionId }, runAt })

interface Plan {
  wallet: WalletRow
  token: { address: string; decimals: number; symbol: string }
  settings: StoredSettings
  /** 10^(18 - decimals): from the token's units to the 18-place units of amounts */
  scale: bigint
  allowed: Allowed
}

/** What the rail needs of an execution in `processing`, or why it cannot pay it. */
async function planOf(deps: Deps, row: ExecutionRow): Promise<Plan | { stop: string }> {
  const db = deps.database.db
  const agent = await repo.findAgent(db, row.tenantId, row.agentId)
  const wallet = agent ? await findWallet(db, row.tenantId, agent.walletId) : undefined
  if (!wallet) return { stop: 'X402_WALLET_GONE: The agent\'s wallet is gone' }
  if (!isCustodial(wallet)) return { stop: 'X402_WALLET_NOT_CUSTODIAL: The x402 rail signs with the agent\'s custodial wallet; this wallet\'s key is not held by Slipway' }
  const resolved = lookupChain(row.network ?? '')
  const token = resolved?.network.tokens.find((tk) => tk.symbol === row.currency && tk.address !== null)
  const chainId = resolved?.network.chainId
  if (!resolved || !token || !chainId || resolved.chain.family !== 'evm') return { stop: `X402_NETWORK_UNSUPPORTED: ${row.currency} on ${row.network} cannot be paid over x402 (EVM networks only)` }
  const tenant = (await findTenant(db, row.tenantId))!
  const settings = settingsOf({ deps }, tenant)
  const scale = 10n ** BigInt(18 - token.decimals)
  const allowed: Allowed = {
    network: `eip155:${chainId}`, chainId, asset: token.address!,
    payTo: row.merchantId ? row.payToAddress : null, maxUnits: toUnits(row.amount) / scale, maxSeconds: deps.config.agentPaymentsX402MaxAuthorizationSeconds,
  }
  return { wallet, token: { address: token.address!, decimals: token.decimals, symbol: token.symbol }, settings, scale, allowed }
}

async function rpcOf(deps: Deps, plan: Pick<Plan, 'settings' | 'wallet'>) {
  const { endpoint } = endpointFor(deps.config, plan.settings, plan.wallet.chain, plan.wallet.isTestnet)
  return { endpoint, rpc: await deps.chain.evmRpc(endpoint) }
}

/** Fails an execution still `processing`, keeping what the rail saw, its hold released (one transaction). */
async function failX402(deps: Deps, scope: Scope, id: string, reason: string, record: X402Record | null): Promise<ExecutionRow> {
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'processing') return row
    if (record?.holdId) await releaseHold(tx, scope.tenantId, record.holdId, now)
    return moveExecution(tx, scope, row, { status: 'failed', failureReason: reason, completedAt: now, x402: record }, 'failed', now)
  })
}

/** `succeeded`, with the transaction that used the authorization (the mandate consumed or exhausted with it). */
async function succeedX402(deps: Deps, scope: Scope, id: string, txHash: string, record: X402Record): Promise<ExecutionRow> {
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'processing') return row
    // the hold stays until it expires: balances read before the settling block do not show the transfer yet
    const after = await moveExecution(tx, scope, row, { status: 'succeeded', txHash, failureReason: null, completedAt: now, x402: record }, 'succeeded', now)
    if (row.mandateId) await afterMandatePayment(tx, scope, row.mandateId, now)
    return after
  })
}

/**
 * Whether the chain shows the authorization used, and by which transaction: then `succeeded`.
 * Otherwise the execution keeps `reason` and waits for the job at the authorization's expiry.
 */
async function settleOrWait(deps: Deps, scope: Scope, plan: Plan, id: string, record: X402Record, reason: string): Promise<ExecutionRow> {
  const a = record.authorization!
  try {
    const { endpoint, rpc } = await rpcOf(deps, plan)
    const used = await deps.chain.guard(endpoint, 'authorization state', () => rpc.authorizationState(plan.token.address as Hex, a.from as Hex, a.nonce as Hex))
    if (used) {
      const head = await rpc.blockNumber()
      const byLog = await rpc.authorizationUsedBy(plan.token.address as Hex, a.from as Hex, a.nonce as Hex, head > LOG_LOOKBACK_BLOCKS ? head - LOG_LOOKBACK_BLOCKS : 0n).catch(() => null)
      const txHash = byLog ?? record.settlement?.transaction ?? null
      if (txHash) {
        const settlement = record.settlement?.success && record.settlement.transaction?.toLowerCase() === txHash.toLowerCase()
          ? record.settlement
          : { success: true, transaction: txHash, network: record.requirement?.network ?? null, payer: a.from, errorReason: null, source: 'chain' as const }
        return succeedX402(deps, scope, id, txHash, { ...record, settlement })
      }
    }
  } catch (err) {
    if (!(err instanceof AppError)) deps.logger.warn('x402 authorization state unreadable', { executionId: id, ...errorSummary(err) })
  }
  const now = deps.clock.now()
  const until = new Date(Number(a.validBefore) * 1000).toISOString()
  await deps.database.write((tx) => repo.updateExecution(tx, scope.tenantId, id, {
    x402: record, updatedAt: now, failureReason: `${reason}; the signed authorization can be settled until ${until}: the execution fails then unless it was`,
  }))
  return (await repo.findExecution(deps.database.db, scope.tenantId, id))!
}

/** The settlement the resource reported in its PAYMENT-RESPONSE header, if any. */
function settlementOf(res: Response): X402Record['settlement'] | undefined {
  const header = res.headers.get('payment-response') ?? res.headers.get('x-payment-response')
  if (!header) return undefined
  try {
    const s = decodePaymentResponseHeader(header)
    return { success: s.success === true, transaction: s.transaction || null, network: s.network ?? null, payer: s.payer ?? null, errorReason: s.errorReason ?? null, source: 'resource' }
  } catch {
    return undefined
  }
}

/** The library's errors, as a code: a stop of ours, refused requirements, an unreadable 402. */
function stopOf(err: unknown, stopped: X402Stop | undefined): { code: string; message: string } {
  if (err instanceof X402Stop) return { code: err.code, message: err.message }
  if (stopped) return { code: stopped.code, message: stopped.message }
  const message = err instanceof Error ? err.message : String(err)
  if (/filtered out by policies|No network\/scheme registered|recognized paymentFlow/.test(message)) {
    return { code: 'X402_REQUIREMENTS_REFUSED', message: 'No payment requirement of the resource is allowed: nothing was signed (see x402.refused)' }
  }
  if (/parse payment requirements|No client registered for x402 version/.test(message)) {
    return { code: 'X402_REQUIREMENTS_UNREADABLE', message: `The resource's 402 answer is not x402 v2 payment requirements: ${message.slice(0, 200)}` }
  }
  return { code: 'X402_FAILED', message: message.slice(0, 300) }
}

/** Pays an execution in `processing` on the x402 rail; answers it as it is after. */
export async function payX402(deps: Deps, tenantId: string, id: string, scope: Scope = systemScope(deps, tenantId, `ap-execution:${id}`)): Promise<ExecutionRow> {
  const row = (await repo.findExecution(deps.database.db, tenantId, id))!
  if (row.status !== 'processing' || row.x402?.authorization || !row.resourceUrl) return row
  const plan = await planOf(deps, row)
  if ('stop' in plan) return failX402(deps, scope, id, plan.stop, null)
  const { wallet, allowed } = plan
  const record: X402Record = {}
  let chosen: PaymentRequirements | undefined
  let stopped: X402Stop | undefined
  let last: ResourceAnswer | undefined
  const stop = (code: string, message: string) => {
    stopped = new X402Stop(code, message)
    return stopped
  }

  const signer = {
    address: wallet.address as Hex,
    signTypedData: async (req: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }): Promise<Hex> => {
      const refusal = chosen ? signingRefusal(req, chosen, allowed, wallet.address, Math.floor(deps.clock.now() / 1000)) : 'no requirement was chosen'
      if (refusal) throw stop('X402_SIGNING_REFUSED', `Slipway refused to sign: ${refusal}`)
      const secret = walletSecret(deps, wallet)
      try {
        return await privateKeyToAccount(bytesToHex(secret)).signTypedData(req as never)
      } finally {
        secret.fill(0)
      }
    },
  }
  const client = new x402Client()
    .setSpendControls(false) // the policy and the mandate judged the amount; refusalsOf holds the requirement to it
    .register('eip155:*', new ExactEvmScheme(signer))
    .registerPolicy((_version, requirements) => {
      record.refused = []
      const ok = requirements.filter((r) => {
        const reasons = refusalsOf(r, allowed)
        if (reasons.length) record.refused!.push({ ...requirementOf(r), reasons })
        return reasons.length === 0
      })
      return ok
    })
    .onBeforePaymentCreation(async (c) => {
      chosen = c.selectedRequirements
    })
    .onAfterPaymentCreation(async (c) => {
      // stored, held and scheduled before the payment header leaves: a refusal here sends nothing
      const auth = (c.paymentPayload.payload as { authorization?: NonNullable<X402Record['authorization']> }).authorization
      if (!auth || !chosen) throw stop('X402_FAILED', 'The payment payload carries no EIP-3009 authorization')
      await authorize(deps, scope, plan, id, record, chosen, auth).catch((err: unknown) => {
        if (err instanceof AppError) throw stop(err.code ?? 'X402_FAILED', err.message)
        throw err
      })
    })

  const paying = wrapFetchWithPayment(resourceFetch(deps, row.resourceUrl, (a) => { last = a }), client)
  let res: Response | undefined
  let failure: { code: string; message: string } | undefined
  try {
    res = await paying(row.resourceUrl, { method: 'GET' })
  } catch (err) {
    failure = stopOf(err, stopped)
  }
  if (last) record.resource = keptAnswer(last)
  if (!record.authorization) {
    // nothing was sent: the execution fails at once, its reservation released
    const { code, message } = failure ?? { code: 'X402_PAYMENT_NOT_REQUIRED', message: `The resource answered ${res?.status} without asking for payment: nothing was paid` }
    return failX402(deps, scope, id, `${code}: ${message}`, record)
  }
  if (res) record.settlement = settlementOf(res)
  const why = failure ? `${failure.code}: ${failure.message}`
    : res!.status === 402 ? 'X402_PAYMENT_REFUSED: The resource answered 402 again after the payment was sent'
      : record.settlement?.success ? 'X402_NOT_SETTLED: The resource reported a settlement the token does not show yet'
        : `X402_NOT_SETTLED: The resource answered ${res!.status} with no successful settlement`
  return settleOrWait(deps, scope, plan, id, record, why)
}

/** The authorization signed: its amount held, the execution updated (the price, the payee) and its expiry check scheduled. */
async function authorize(deps: Deps, scope: Scope, plan: Plan, id: string, record: X402Record, chosen: PaymentRequirements, auth: NonNullable<X402Record['authorization']>) {
  const units = BigInt(chosen.amount)
  const held = await walletBalances(deps, plan.settings, plan.wallet, plan.token.address)
  if (!held) throw new AppError(400, 'BadRequestError', 'The agent\'s wallet is on a chain the registry does not know', { code: 'X402_NETWORK_UNSUPPORTED' })
  const expiresAt = Number(auth.validBefore) * 1000 + SETTLE_GRACE_MS
  const now = deps.clock.now()
  const holdId = await deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'processing' || row.x402?.authorization) throw new AppError(409, 'ConflictError', 'The execution is no longer waiting to be paid', { code: 'EXECUTION_STATE_INVALID' })
    const holdId = await placeHold(tx, held.key, held.balances, { tokenAddress: plan.token.address, amount: units, purpose: 'agent_payment_x402', refId: id, expiresAt }, now)
    // the execution now counts what the resource asks (at most what was reserved)
    await moveExecution(tx, scope, row, { amount: fromUnits(units * plan.scale), payToAddress: chosen.payTo, x402: { ...record, requirement: requirementOf(chosen), authorization: auth, holdId } }, 'authorized', now)
    await scheduleJob(tx, settleJob(scope.tenantId, id, expiresAt), now)
    return holdId
  })
  // only once stored: from here the payment counts as sent
  Object.assign(record, { requirement: requirementOf(chosen), authorization: auth, holdId })
}

/** The `agent_payments.x402.settle` job, at an authorization's expiry: used → `succeeded`, else `failed` and released. */
export async function settleX402(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>): Promise<void> {
  const id = String(payload.executionId)
  const row = tenantId ? await repo.findExecution(deps.database.db, tenantId, id) : undefined
  if (!tenantId || !row || row.status !== 'processing' || !row.x402?.authorization) return
  const scope = systemScope(deps, tenantId, `job:${X402_SETTLE_TOPIC}:${id}`)
  const plan = await planOf(deps, row)
  if ('stop' in plan) {
    await failX402(deps, scope, id, plan.stop, row.x402)
    return
  }
  const validUntil = Number(row.x402.authorization.validBefore) * 1000
  const reason = row.failureReason?.split('; the signed authorization')[0] ?? 'X402_NOT_SETTLED: The resource did not settle the payment'
  const after = await settleOrWait(deps, scope, plan, id, row.x402, reason)
  if (after.status !== 'processing') return
  const now = deps.clock.now()
  if (now < validUntil) {
    await deps.database.write((tx) => scheduleJob(tx, settleJob(tenantId, id, validUntil + SETTLE_GRACE_MS), now))
    return
  }
  // expired: read once more (settleOrWait answered `processing` only because it was unused or unreadable)
  try {
    const { endpoint, rpc } = await rpcOf(deps, plan)
    const a = row.x402.authorization
    const used = await deps.chain.guard(endpoint, 'authorization state', () => rpc.authorizationState(plan.token.address as Hex, a.from as Hex, a.nonce as Hex))
    if (used) throw new Error('used but its transaction was not found yet')
  } catch (err) {
    deps.logger.warn('x402 authorization not settled yet; looking again', { executionId: id, ...errorSummary(err) })
    await deps.database.write((tx) => scheduleJob(tx, settleJob(tenantId, id, now + 15_000), now))
    return
  }
  await failX402(deps, scope, id, reason, row.x402)
}
