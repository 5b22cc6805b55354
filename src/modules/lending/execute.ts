/**
 * Supply and withdraw on an Aave v3 Pool from one of the caller's EVM wallets. Nothing here
 * signs: every transaction goes through the transactions module's `createEvmCall` (custodial
 * wallets: nonce lane, holds of the supplied token and the gas, the status job, history;
 * non-custodial: prepared for client signing) and its broadcast, as swaps do.
 *
 * A supply needs the pool's allowance. Custodial: when it is short, an ERC-20 approval of
 * exactly the amount is sent first and the supply right after it in the wallet's nonce lane;
 * no node can estimate a supply whose approval is not mined yet, so that supply carries a
 * fixed gas limit (SUPPLY_GAS_AFTER_APPROVAL). Non-custodial: prepare-supply answers the
 * approval alone when it is short (`nextStep: broadcast_then_prepare_again`), and the supply
 * once the approval is mined, so each prepared transaction is estimated against the chain
 * as it will be. A custodial supply that goes gas-sponsored (docs/gas-sponsorship.md) carries its
 * approval in the same user operation (`executeBatch`): both happen or neither, and `approval`
 * is null.
 */
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import { AAVE_POOL_ABI } from '../../adapters/chain/aave'
import type { Ctx } from '../../context'
import { errorBody } from '../../http/errors'
import { BadRequestError, ConflictError } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import { tenantOf } from '../tenants'
import { chainByFamily } from '../tokens'
import { transactions, preparedNotFound, insufficientBalance, findUserPrepared, findUserTransaction, isCustodial } from '../transactions'
import { wallets } from '../wallets'
import type { LendingBroadcastBody, SupplyBody, WithdrawBody } from './model'
import { requirePool } from './pools'
import { listedReserve, marketFor } from './reserves'

/** Gas of a supply sent before its approval is mined (Aave v3's supply takes about 150,000 to 250,000). */
export const SUPPLY_GAS_AFTER_APPROVAL = 350_000n
const PROTOCOL = 'aave'

type Mode = 'send' | 'prepare'

async function plan(ctx: Ctx, input: SupplyBody | WithdrawBody, mode: Mode) {
  const tenant = tenantOf(ctx)
  const w = await wallets.ownWallet(ctx, input.walletId)
  const chain = chainByFamily(w.chain)
  if (chain?.family !== 'evm') throw new BadRequestError(`Aave is on EVM chains; this wallet is on ${w.chain}`, { code: 'AAVE_NETWORK_UNSUPPORTED' })
  if (mode === 'send' && !isCustodial(w)) {
    throw new BadRequestError(
      'This wallet signs on the client: use POST /v1/aave/prepare-supply or /prepare-withdraw and then /v1/aave/broadcast',
      { code: 'AAVE_CLIENT_SIGNED_WALLET' },
    )
  }
  if (mode === 'prepare' && isCustodial(w)) throw new BadRequestError('Slipway signs for this wallet: use POST /v1/aave/supply or /withdraw', { code: 'AAVE_CUSTODIAL_WALLET' })
  const amount = BigInt(input.amount)
  if (amount <= 0n) throw new BadRequestError('amount must be greater than 0')
  if (amount >= 2n ** 256n - 1n) throw new BadRequestError('amount is too large')
  const network = w.isTestnet ? chain.testnet.id : chain.mainnet.id
  await requirePool(ctx.deps.config, network)
  const m = (await marketFor(ctx.deps, tenant.id, tenant.settings, w.chain, w.isTestnet))!
  const reserve = await listedReserve(ctx.deps, m, input.asset)
  return { w, m, reserve, amount, owner: w.address as Hex, asset: input.asset as Hex }
}

const view = <T extends object>(created: T, type: 'approval' | 'supply' | 'withdraw', p: { m: { pool: string }; asset: string; amount: bigint }) =>
  ({ ...created, type, pool: p.m.pool, asset: p.asset, amount: p.amount.toString() })

const approvalCall = (p: Awaited<ReturnType<typeof plan>>) => ({
  walletId: p.w.id, tokenAddress: p.asset, amount: 0n, to: p.m.pool,
  call: { to: p.asset, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [p.m.pool, p.amount] }) },
  record: { type: 'approval' as const, metadata: { protocol: PROTOCOL, spender: p.m.pool, allowance: p.amount.toString() } },
})

const supplyCall = (p: Awaited<ReturnType<typeof plan>>, fixedGasLimit?: bigint) => ({
  walletId: p.w.id, tokenAddress: p.asset, amount: p.amount, to: p.m.pool,
  call: { to: p.m.pool, value: 0n, data: encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'supply', args: [p.asset, p.amount, p.owner, 0] }), fixedGasLimit },
  record: { type: 'supply' as const, metadata: { protocol: PROTOCOL, pool: p.m.pool, asset: p.asset, aToken: p.reserve.aTokenAddress } },
})

/** The wallet's aToken balance must cover the withdrawal: a withdraw above it would revert on chain. */
async function withdrawCall(ctx: Ctx, p: Awaited<ReturnType<typeof plan>>) {
  const supplied = await ctx.deps.chain.guard(p.m.endpoint, 'aave aToken balance', () => p.m.rpc.tokenBalance(p.reserve.aTokenAddress, p.owner))
  if (supplied < p.amount) throw new BadRequestError(`The wallet has ${supplied} of this asset supplied to the pool (smallest unit), less than ${p.amount}`, { code: 'AAVE_INSUFFICIENT_SUPPLY' })
  return {
    // nothing of the wallet's token is spent: only the gas is held; the record's `amount` is 0 and `metadata.amount` the withdrawal
    walletId: p.w.id, tokenAddress: p.asset, amount: 0n, to: p.m.pool,
    call: { to: p.m.pool, value: 0n, data: encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'withdraw', args: [p.asset, p.amount, p.owner] }) },
    record: { type: 'withdraw' as const, metadata: { protocol: PROTOCOL, pool: p.m.pool, asset: p.asset, aToken: p.reserve.aTokenAddress, amount: p.amount.toString() } },
  }
}

async function allowanceOf(ctx: Ctx, p: Awaited<ReturnType<typeof plan>>) {
  const rpc = await ctx.deps.chain.evmRpc(p.m.endpoint)
  return ctx.deps.chain.guard(p.m.endpoint, 'allowance', () => rpc.allowance(p.asset, p.owner, p.m.pool))
}

/**
 * The request's Idempotency-Key bound to the lending operation as a whole, in place of each of
 * its transactions: `aave_supply:<approvalId>:<supplyId>` or `aave_withdraw::<withdrawId>`, so a
 * retry answers the operation as it is now, in this group's shape (`lendingState`). `step` is
 * the transaction this context sends. Once an approval was sent the key stays bound to it: a
 * supply that then never reaches a node does not release the key, or a retry would approve again.
 */
function bindingFor(ctx: Ctx, kind: 'aave_supply' | 'aave_withdraw', ids: { approval: string; main: string }, step: 'approval' | 'main'): Ctx {
  const key = ctx.idempotency
  if (!key) return ctx
  return {
    ...ctx,
    idempotency: {
      bind: (tx, resource) => {
        ids[step] = resource.slice(resource.indexOf(':') + 1)
        return key.bind(tx, `${kind}:${ids.approval}:${ids.main}`)
      },
      unbind: (tx) => (step === 'main' && ids.approval ? Promise.resolve() : key.unbind(tx)),
    },
  }
}

export async function supply(ctx: Ctx, input: SupplyBody) {
  const p = await plan(ctx, input, 'send')
  // refused before an approval is sent for a supply that could not go on (the holds check again where the supply is recorded)
  const held = await ctx.deps.chain.guard(p.m.endpoint, 'balance', () => p.m.rpc.tokenBalance(p.asset, p.owner))
  if (held < p.amount) throw insufficientBalance('token', held)
  const allowance = await allowanceOf(ctx, p)
  const ids = { approval: '', main: '' }
  if (allowance < p.amount) {
    // a wallet without gas money, where the tenant's gas policy covers lending: the approval and the supply as one sponsored user operation
    const batched = await transactions.createSponsoredBatch(bindingFor(ctx, 'aave_supply', ids, 'main'), {
      ...supplyCall(p, SUPPLY_GAS_AFTER_APPROVAL), ahead: [approvalCall(p).call],
    })
    if (batched) return { ...view(batched, 'supply', p), type: 'supply' as const, approval: null }
  }
  const approval = allowance < p.amount ? view(await transactions.createEvmCall(bindingFor(ctx, 'aave_supply', ids, 'approval'), approvalCall(p)), 'approval', p) : null
  const sent = await transactions.createEvmCall(bindingFor(ctx, 'aave_supply', ids, 'main'), supplyCall(p, approval ? SUPPLY_GAS_AFTER_APPROVAL : undefined))
  return { ...view(sent, 'supply', p), type: 'supply' as const, approval }
}

export async function withdraw(ctx: Ctx, input: WithdrawBody) {
  const p = await plan(ctx, input, 'send')
  const sent = await transactions.createEvmCall(bindingFor(ctx, 'aave_withdraw', { approval: '', main: '' }, 'main'), await withdrawCall(ctx, p))
  return { ...view(sent, 'withdraw', p), type: 'withdraw' as const }
}

/**
 * What a retry with a bound Idempotency-Key answers (`id` = `<approvalId>:<mainId>`): the
 * supply or withdraw and its approval as they are now (201); an approval sent whose supply
 * was not: 409 `AAVE_SUPPLY_NOT_SENT` with the approval (supply again with a new key: the
 * allowance covers it once the approval is mined). Null when nothing of it is found.
 */
export async function lendingState(ctx: Ctx, type: 'supply' | 'withdraw', id: string, body: SupplyBody | WithdrawBody) {
  if (!ctx.actor.tenantId) return null
  const read = async (txId: string | undefined) => (txId && isUuid(txId) ? (await findUserTransaction(ctx.deps.database.db, ctx.actor.tenantId!, ctx.actor.userId, txId)) ?? null : null)
  const [approvalId, mainId] = id.split(':')
  const [approvalRow, main] = [await read(approvalId), await read(mainId)]
  const any = main ?? approvalRow
  if (!any) return null
  const p = { m: { pool: any.toAddress ?? '' }, asset: body.asset, amount: BigInt(body.amount) }
  const created = (r: NonNullable<typeof any>) => ({
    id: r.id,
    status: r.status,
    txHash: r.txHash,
    requiresClientSigning: r.requiresClientSigning,
    nonce: r.nonce,
    chain: r.chain,
    isTestnet: r.isTestnet,
  })
  const approval = approvalRow && view(created(approvalRow), 'approval', p)
  if (!main) {
    const err = new ConflictError(
      'The approval of the pool was sent and the supply was not: supply again with a new Idempotency-Key (no approval is needed once this one is mined)',
      { code: 'AAVE_SUPPLY_NOT_SENT', details: { approval } },
    )
    return { status: 409, body: errorBody(err, 'standard') }
  }
  return { status: 201, body: type === 'supply' ? { ...view(created(main), 'supply', p), type, approval } : { ...view(created(main), 'withdraw', p), type } }
}

export async function prepareSupply(ctx: Ctx, input: SupplyBody) {
  const p = await plan(ctx, input, 'prepare')
  const allowance = await allowanceOf(ctx, p)
  if (allowance < p.amount) return { ...view(await transactions.createEvmCall(ctx, approvalCall(p)), 'approval', p), nextStep: 'broadcast_then_prepare_again' as const }
  return { ...view(await transactions.createEvmCall(ctx, supplyCall(p)), 'supply', p), nextStep: 'broadcast' as const }
}

export async function prepareWithdraw(ctx: Ctx, input: WithdrawBody) {
  const p = await plan(ctx, input, 'prepare')
  return { ...view(await transactions.createEvmCall(ctx, await withdrawCall(ctx, p)), 'withdraw', p), nextStep: 'broadcast' as const }
}

/** A client-signed lending transaction (its approval, supply or withdraw), broadcast once through the transactions module. */
export async function broadcastLending(ctx: Ctx, input: LendingBroadcastBody) {
  const tenant = tenantOf(ctx)
  if (!isUuid(input.transactionId)) throw preparedNotFound()
  const prepared = await findUserPrepared(ctx.deps.database.db, tenant.id, ctx.actor.userId, input.transactionId)
  const row = prepared && (await findUserTransaction(ctx.deps.database.db, tenant.id, ctx.actor.userId, prepared.transactionId))
  // only what this group prepared: another group's prepared transaction is not found here
  if (!row || !['approval', 'supply', 'withdraw'].includes(row.type) || row.metadata?.protocol !== PROTOCOL) throw preparedNotFound()
  const { transactionId: _, ...signature } = input
  return transactions.broadcastTransaction(ctx, prepared!.id, signature)
}
