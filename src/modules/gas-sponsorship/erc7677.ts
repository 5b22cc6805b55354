/**
 * ERC-7677, the paymaster web service, for wallets whose keys Slipway does not hold: an app
 * with viem's `createPaymasterClient` (or permissionless) points it at
 * `POST /v1/gas-sponsorship/{network}/rpc` with the user's bearer token, and its user operations
 * are sponsored under the tenant's policy and limits like custodial sends.
 *
 * - `pm_getPaymasterStubData`: the policy is checked (the sender is one of the signed-in user's
 *   wallets on this network, the calls are of a sponsored kind, the paymaster's deposit is
 *   above its threshold) and a stub of the right size is answered for gas estimation, with the
 *   paymaster's gas limits and `isFinal: false`. Nothing is counted.
 * - `pm_getPaymasterData`: the same checks, the maximum cost against the limits, in the write
 *   that records the sponsorship; then the signature, bound to the operation (sender, nonce,
 *   calls, gas), the chain, the paymaster and a validity window of PAYMASTER_VALIDITY_SECONDS.
 *   A job then settles it at what it cost, or releases it once it expired unused (settle.ts).
 * Refusals are JSON-RPC errors whose `data` carries the HTTP status and the code.
 */
import { decodeFunctionData, erc20Abi, type Hex } from 'viem'
import { formatUserOperation, getUserOperationHash, type UserOperation } from 'viem/account-abstraction'
import { encodePaymasterData, ENTRY_POINT_08, signPaymasterData, SIMPLE_7702_ACCOUNT, STUB_PAYMASTER_SIGNATURE } from '../../adapters/bundler'
import { AppError } from '../../lib/errors'
import type { Ctx } from '../../context'
import { lookupChain } from '../tokens'
import { tenantOf } from '../tenants'
import { addressKeyOf, findByAddress } from '../wallets'
import { notSponsored, senderNotAllowed } from './errors'
import type { JsonRpcRequest } from './model'
import { ensureDeposit, sponsorFor, usdRateFor } from './network'
import { findPolicy } from './repo'
import type { GasOperationKind } from './schema'
import { scheduleSettle } from './settle'
import { checkCovered, reserveSponsorship } from './sponsorship'

/** the paymaster's verification gas answered with the stub (the adapter's, for one signature recovery) */
const PAYMASTER_VERIFICATION_GAS = 80_000n

const simple7702Abi = [
  { type: 'function', name: 'execute', inputs: [{ name: 'target', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'data', type: 'bytes' }], outputs: [], stateMutability: 'nonpayable' },
  {
    type: 'function', name: 'executeBatch', outputs: [], stateMutability: 'nonpayable',
    inputs: [{ name: 'calls', type: 'tuple[]', components: [{ name: 'target', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'data', type: 'bytes' }] }],
  },
] as const

class RpcRefusal extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message)
  }
}

/** The calls of a Simple7702Account `execute` / `executeBatch`, and the kind they make. */
export function callsOf(callData: Hex): { kind: GasOperationKind; calls: Array<{ to: string; value: bigint; data: Hex }> } {
  let calls: Array<{ to: string; value: bigint; data: Hex }>
  try {
    const d = decodeFunctionData({ abi: simple7702Abi, data: callData })
    calls = d.functionName === 'execute'
      ? [{ to: d.args[0], value: d.args[1], data: d.args[2] }]
      : d.args[0].map((c) => ({ to: c.target, value: c.value, data: c.data }))
  } catch {
    throw notSponsored('the call data is not a Simple7702Account execute or executeBatch')
  }
  const isSend = calls.length > 0 && calls.every((c) => {
    if (c.data === '0x') return true
    try {
      return c.value === 0n && decodeFunctionData({ abi: erc20Abi, data: c.data }).functionName === 'transfer'
    } catch {
      return false
    }
  })
  return { kind: isSend ? 'send' : 'dapp', calls }
}

function operationOf(raw: unknown): UserOperation<'0.8'> {
  if (!raw || typeof raw !== 'object') throw new RpcRefusal(-32602, 'params[0] must be a user operation')
  try {
    return formatUserOperation(raw as never) as UserOperation<'0.8'>
  } catch {
    throw new RpcRefusal(-32602, 'params[0] is not a user operation (v0.7 and later fields, quantities in hex)')
  }
}

async function judge(ctx: Ctx, networkId: string, params: unknown[]) {
  const tenant = tenantOf(ctx)
  const found = lookupChain(networkId)
  if (!found || found.chain.family !== 'evm') throw new RpcRefusal(-32602, `${networkId} is not an EVM network of the registry`)
  const [rawOp, entryPoint, chainId] = params
  if (typeof entryPoint !== 'string' || entryPoint.toLowerCase() !== ENTRY_POINT_08.toLowerCase()) throw new RpcRefusal(-32602, `only EntryPoint v0.8 (${ENTRY_POINT_08}) is sponsored`)
  if (typeof chainId !== 'string' || Number(chainId) !== found.network.chainId) throw new RpcRefusal(-32602, `chain id ${String(chainId)} is not ${found.network.id}'s (${found.network.chainId})`)
  const op = operationOf(rawOp)
  const isTestnet = found.network.id !== found.chain.id
  const wallet = await findByAddress(ctx.deps.database.db, tenant.id, found.chain.id, isTestnet, addressKeyOf('evm', op.sender))
  if (!wallet || wallet.userId !== ctx.actor.userId) throw senderNotAllowed()
  const { kind, calls } = callsOf(op.callData)
  const sponsor = await sponsorFor(ctx.deps, tenant.settings, found.network.id)
  checkCovered(await findPolicy(ctx.deps.database.db, tenant.id, found.network.id), found.network.id, kind, calls)
  await ensureDeposit(ctx.deps, sponsor, tenant.id)
  return { tenant, op, kind, calls, sponsor, network: found.network.id }
}

async function stubData(ctx: Ctx, networkId: string, params: unknown[]) {
  const { sponsor } = await judge(ctx, networkId, params)
  return {
    paymaster: sponsor.endpoint.paymaster,
    paymasterData: encodePaymasterData({ validUntil: 0, validAfter: 0 }, STUB_PAYMASTER_SIGNATURE),
    paymasterVerificationGasLimit: `0x${PAYMASTER_VERIFICATION_GAS.toString(16)}`,
    paymasterPostOpGasLimit: '0x0',
    isFinal: false,
  }
}

async function paymasterData(ctx: Ctx, networkId: string, params: unknown[]) {
  const { tenant, op, kind, calls, sponsor, network } = await judge(ctx, networkId, params)
  const pmGas = (op.paymasterVerificationGasLimit ?? PAYMASTER_VERIFICATION_GAS) + (op.paymasterPostOpGasLimit ?? 0n)
  const sponsored = { ...op, paymasterVerificationGasLimit: op.paymasterVerificationGasLimit ?? PAYMASTER_VERIFICATION_GAS, paymasterPostOpGasLimit: op.paymasterPostOpGasLimit ?? 0n }
  const maxCost = (op.callGasLimit + op.verificationGasLimit + op.preVerificationGas + pmGas) * op.maxFeePerGas
  const now = ctx.deps.clock.now()
  const window = { validUntil: Math.floor(now / 1000) + ctx.deps.config.paymasterValiditySeconds, validAfter: 0 }
  const data = await signPaymasterData(sponsor.signer, sponsored, sponsor.endpoint.chainId, sponsor.endpoint.paymaster, window)
  const hashed = { ...sponsored, paymaster: sponsor.endpoint.paymaster, paymasterData: data, signature: '0x' as Hex }
  // a first operation of an EOA names the 7702 marker: its hash commits to the delegate, Simple7702Account
  if (op.factory === '0x7702' || op.factory === '0x7702000000000000000000000000000000000000') Object.assign(hashed, { authorization: { address: SIMPLE_7702_ACCOUNT } })
  const userOpHash = getUserOperationHash({ chainId: sponsor.endpoint.chainId, entryPointAddress: ENTRY_POINT_08, entryPointVersion: '0.8', userOperation: hashed as never })
  const usdRate = await usdRateFor(ctx.deps, network)
  await ctx.deps.database.write(async (tx) => {
    const row = await reserveSponsorship(tx, {
      tenantId: tenant.id, userId: ctx.actor.userId, network, sender: op.sender, kind, calls, maxCost, nonce: op.nonce, source: 'erc7677', userOpHash,
      validUntil: window.validUntil, usdRate,
    }, now)
    // its outcome, looked up by the job: settled at what it cost, or released once expired unused (settle.ts)
    await scheduleSettle(tx, tenant.id, row.id, now)
  })
  return { paymaster: sponsor.endpoint.paymaster, paymasterData: data }
}

/** One ERC-7677 JSON-RPC request; refusals come back as JSON-RPC errors (never an HTTP error). */
export async function paymasterRpc(ctx: Ctx, networkId: string, req: JsonRpcRequest) {
  const base = { jsonrpc: '2.0' as const, id: req.id }
  try {
    const params = req.params ?? []
    if (req.method === 'pm_getPaymasterStubData') return { ...base, result: await stubData(ctx, networkId, params) }
    if (req.method === 'pm_getPaymasterData') return { ...base, result: await paymasterData(ctx, networkId, params) }
    return { ...base, error: { code: -32601, message: `Method not found: ${req.method} (pm_getPaymasterStubData and pm_getPaymasterData are served)` } }
  } catch (err) {
    if (err instanceof RpcRefusal) return { ...base, error: { code: err.code, message: err.message } }
    if (err instanceof AppError) return { ...base, error: { code: -32000, message: err.message, data: { status: err.status, code: err.code ?? null } } }
    throw err
  }
}
