/**
 * The `x402` rail (x402 protocol v2, and v1 where a resource offers only that: the x402
 * Foundation's `@x402/fetch`, `@x402/core` and `@x402/evm`; the versions are mapped in
 * x402-versions.ts): Slipway fetches the execution's `resourceUrl` for the agent, reads the `402
 * Payment Required` requirements, refuses every requirement the judged execution does not allow
 * (x402-checks.ts, the same checks for both versions) before anything is signed, signs the
 * EIP-3009 `transferWithAuthorization` of the one chosen with the agent's custodial key, and
 * retries with the payment header (`PAYMENT-SIGNATURE` in v2, `X-PAYMENT` in v1).
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
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { bytesToHex, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Deps } from '../../../deps'
import { AppError, BadRequestError, ConflictError } from '../../../lib/errors'
import { scheduleJob } from '../../../jobs/outbox'
import { transactions, walletSecret } from '../../transactions'
import { systemScope, type Scope } from '../agents/credentials'
import { moveExecution } from '../executions/moves'
import { fromUnits } from '../policies/policy'
import * as repo from '../repo'
import type { ExecutionRow } from '../schema'
import type { X402Record } from '../record-types'
import { refusalsOf, requirementOf, signingRefusal } from './x402-checks'
import { payeeRefusedIn, planOf, settleJob, type Plan } from './x402-plan'
import { failX402, settleLookMs, settleOrWait } from './x402-settle'
import { CONSENT_REQUIRED, walletConsentRefusal } from '../agents/wallet-consent'
import { keptAnswer, resourceFetch, X402Stop, type ResourceAnswer } from './x402-transport'
import { asV2Requirement, caipNetwork, X402HttpClient, type X402Version } from './x402-versions'

/** The settlement the resource reported in its PAYMENT-RESPONSE header (X-PAYMENT-RESPONSE in v1), if any; its network as CAIP-2. */
function settlementOf(res: Response, version: X402Version | undefined): X402Record['settlement'] | undefined {
  const [own, other] = version === 1 ? ['x-payment-response', 'payment-response'] : ['payment-response', 'x-payment-response']
  const header = res.headers.get(own) ?? res.headers.get(other)
  if (!header) return undefined
  try {
    const s = decodePaymentResponseHeader(header)
    const network = s.network ? caipNetwork(version ?? 2, s.network) : null
    return { success: s.success === true, transaction: s.transaction || null, network, payer: s.payer ?? null, errorReason: s.errorReason ?? null, source: 'resource' }
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
    return { code: 'X402_REQUIREMENTS_UNREADABLE', message: `The resource's 402 answer is not x402 payment requirements (version 2 or 1): ${message.slice(0, 200)}` }
  }
  return { code: 'X402_FAILED', message: message.slice(0, 300) }
}

/** Pays an execution in `processing` on the x402 rail; answers it as it is after. */
export async function payX402(deps: Deps, tenantId: string, id: string, given?: Scope): Promise<ExecutionRow> {
  const scope = given ?? await systemScope(deps, tenantId, `ap-execution:${id}`)
  const row = (await repo.findExecution(deps.database.db, tenantId, id))!
  if (row.status !== 'processing' || row.x402?.authorization || !row.resourceUrl) return row
  const plan = await planOf(scope, row)
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
  // the exact EVM scheme for v2 (any eip155 network) and v1 (every v1 EVM name), the checks below picking the network;
  // the client's spend controls off: the policy and the mandate judged the amount, refusalsOf holds the requirement to it
  const client = registerExactEvmScheme(new x402Client().setSpendControls(false), { signer })
    .registerPolicy((version, requirements) => {
      // the library hands v1 requirements in v1's shape: the same checks see them as v2's
      record.refused = []
      const ok = requirements.filter((r) => {
        const seen = asV2Requirement(version, r)
        const reasons = refusalsOf(seen, allowed)
        if (reasons.length) record.refused!.push({ ...requirementOf(seen), reasons })
        return reasons.length === 0
      })
      return ok
    })
    .onBeforePaymentCreation(async (c) => {
      chosen = asV2Requirement(c.paymentRequired.x402Version, c.selectedRequirements)
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

  const paying = wrapFetchWithPayment(resourceFetch(deps, row.resourceUrl, (a) => { last = a }), new X402HttpClient(client, (version) => { record.version = version }))
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
  if (res) record.settlement = settlementOf(res, record.version)
  const why = failure ? `${failure.code}: ${failure.message}`
    : res!.status === 402 ? 'X402_PAYMENT_REFUSED: The resource answered 402 again after the payment was sent'
      : record.settlement?.success ? 'X402_NOT_SETTLED: The resource reported a settlement the token does not show yet'
        : `X402_NOT_SETTLED: The resource answered ${res!.status} with no successful settlement`
  return settleOrWait(deps, scope, plan, id, record, why)
}

/** The authorization signed: its amount held, the execution updated (the price, the payee) and its expiry check scheduled. */
async function authorize(deps: Deps, scope: Scope, plan: Plan, id: string, record: X402Record, chosen: PaymentRequirements, auth: NonNullable<X402Record['authorization']>) {
  const units = BigInt(chosen.amount)
  // where the transaction that uses it will be searched from (a few blocks back, for a node behind)
  const rpc = await deps.chain.evmRpc(plan.endpoint)
  const head = await deps.chain.guard(plan.endpoint, 'block number', () => rpc.blockNumber())
  const fromBlock = (head > 5n ? head - 5n : 0n).toString()
  const held = await transactions.walletBalances(deps, plan.settings, plan.wallet, plan.token.address)
  if (!held) throw new BadRequestError('The agent\'s wallet is on a chain the registry does not know', { code: 'X402_NETWORK_UNSUPPORTED' })
  const expiresAt = Number(auth.validBefore) * 1000 + settleLookMs(deps)
  const now = deps.clock.now()
  const holdId = await deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'processing' || row.x402?.authorization) throw new ConflictError('The execution is no longer waiting to be paid', { code: 'EXECUTION_STATE_INVALID' })
    const refused = await payeeRefusedIn(tx, row, chosen.payTo)
    if (refused.length) throw new ConflictError(`The payee is refused: ${refused.join('; ')}`, { code: 'X402_PAYEE_REFUSED' })
    // the owner's consent again in the write that stores the authorization: one withdrawn since the check before the fetch refuses it here
    const agent = await repo.findAgent(tx, scope.tenantId, row.agentId)
    const consent = agent ? await walletConsentRefusal(scope, tx, agent) : 'The agent is gone'
    if (consent) throw new ConflictError(consent, { code: CONSENT_REQUIRED })
    const holdId = await transactions.placeHold(tx, held.key, held.balances, { tokenAddress: plan.token.address, amount: units, purpose: 'agent_payment_x402', refId: id, expiresAt }, now)
    // the execution now counts what the resource asks (at most what was reserved)
    await moveExecution(
      tx, scope, row,
      { amount: fromUnits(units * plan.scale), payToAddress: chosen.payTo, x402: { ...record, requirement: requirementOf(chosen), authorization: auth, holdId, fromBlock } },
      'authorized', now,
    )
    await scheduleJob(tx, settleJob(scope.tenantId, id, expiresAt), now)
    return holdId
  })
  // only once stored: from here the payment counts as sent
  Object.assign(record, { requirement: requirementOf(chosen), authorization: auth, holdId, fromBlock })
}
