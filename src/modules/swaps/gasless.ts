/**
 * Gasless swaps (docs/swaps.md "Gasless swaps"): a euro stablecoin with an EIP-2612 permit to
 * the native coin on gnosis or gnosis-chiado (the wallet's network), for a wallet that holds no native coin. The owner signs a permit
 * for the router (`sign-permit` answers the typed data; a custodial wallet's is signed here by
 * `execute-gasless`); the deployment's relayer submits the router's `swapWithPermit`, pays the
 * gas and is repaid `relayerFee` of the stablecoin out of the amount swapped. The relayer's
 * send goes through the transactions module as a relayed send (`createEvmCall` with a
 * `signer`): its own nonce lane, the owner's stablecoin held, the record in the owner's
 * history as a swap, followed by the status job.
 */
import { encodeFunctionData, formatUnits, hexToBytes, parseSignature, recoverTypedDataAddress, type Hex } from 'viem'
import { privateKeyToAccount, signTypedData } from 'viem/accounts'
import type { Config } from '../../config'
import type { Ctx } from '../../context'
import { AppError, BadRequestError, NotFoundError, ServiceUnavailableError } from '../../lib/errors'
import type { StoredSettings } from '../tenants'
import { tenantOf } from '../tenants'
import { endpointFor } from '../tokens'
import { transactions, type EvmNet, relayerNonceKey, isCustodial, walletSecret } from '../transactions'
import type { RelaySigner } from '../transactions'
import { wallets } from '../wallets'
import type { BroadcastGaslessBody, GaslessQuoteBody } from './gasless-model'
import { attachRelay, claimRelay, quoteRelayed, releaseRelay } from './gasless-claims'
import { findUserQuote } from './repo'

/** Gas the relayer's call is priced at (the fee, the quote's cost, the low-gas check); the sandbox router's swapWithPermit uses about 110,000. */
export const GASLESS_GAS = 250_000n
const CHAIN = 'gnosis'
const ZERO = /^0x0{40}$/i
/**
 * The euro stablecoins on gnosis (and its testnet, gnosis-chiado) with an EIP-2612 permit, by
 * address: their EIP-712 domain (name, version). The chiado EURe's is the devnet's (SandboxEURe.sol).
 */
const PERMIT_DOMAINS: Record<string, { name: string; version: string }> = {
  '0xcb444e90d8198415266c6a2724b7900fb12fc56e': { name: 'Monerium EURe', version: '2' },
  '0xb106ed7587365a16b6691a3d4b2a734f4e8268a2': { name: 'Monerium EURe', version: '2' },
}
/** the registry id of gnosis's network: `gnosis`, or `gnosis-chiado` for a testnet wallet */
const networkId = (isTestnet: boolean) => (isTestnet ? 'gnosis-chiado' : CHAIN)
const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' },
  ],
} as const
const ROUTER_ABI = [{
  type: 'function', name: 'swapWithPermit', stateMutability: 'nonpayable', outputs: [{ name: 'amountOut', type: 'uint256' }],
  inputs: [
    { name: 'payer', type: 'address' }, { name: 'tokenIn', type: 'address' }, { name: 'amountIn', type: 'uint256' }, { name: 'fee', type: 'uint256' },
    { name: 'minAmountOut', type: 'uint256' }, { name: 'deadline', type: 'uint256' }, { name: 'v', type: 'uint8' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' },
  ],
}] as const

const routerOf = (config: Config) => (config.swapGaslessRouterAddress ?? config.sandboxSwapRouterAddress) as Hex | undefined
export const gaslessEnabled = (config: Config) => config.swapGaslessEnabled && !!config.swapGaslessRelayerPrivateKey && !!routerOf(config)

/** The permit domain when the pair is gasless-eligible: both chains gnosis, a euro stablecoin with a permit to the zero address. */
function eligible(fromChain: string, toChain: string, fromToken: string | null, toToken: string) {
  if (fromChain !== CHAIN || toChain !== CHAIN || !fromToken || !ZERO.test(toToken)) return null
  return PERMIT_DOMAINS[fromToken.toLowerCase()] ?? null
}

async function gnosis(ctx: Ctx, settings: StoredSettings, isTestnet: boolean) {
  const { endpoint } = endpointFor(ctx.deps.config, settings, CHAIN, isTestnet)
  return transactions.evmNet(ctx.deps, endpoint)
}

async function maxFeePerGas(ctx: Ctx, net: EvmNet) {
  return ctx.deps.chain.guard(net.endpoint, 'fees', async () => {
    const [base, tip] = await Promise.all([net.rpc.latestBaseFee(), net.rpc.maxPriorityFeePerGas().catch(() => 1_000_000_000n)])
    return (base ?? 0n) * 2n + tip
  })
}

/**
 * The quote's `gasless` block (spec: present only when enabled on the deployment and the quote
 * is a euro stablecoin to the native coin on gnosis); left out when the node does not answer.
 */
export async function gaslessQuoteBlock(ctx: Ctx, settings: StoredSettings, q: { fromChain: string; toChain: string; isTestnet: boolean; fromToken: string; toToken: string; owner: string }) {
  if (!gaslessEnabled(ctx.deps.config)) return {}
  const domain = eligible(q.fromChain, q.toChain, q.fromToken, q.toToken)
  if (!domain) return {}
  try {
    const net = await gnosis(ctx, settings, q.isTestnet)
    const [nonce, maxFee] = await Promise.all([
      ctx.deps.chain.guard(net.endpoint, 'permit nonce', () => net.rpc.permitNonce(q.fromToken as Hex, q.owner as Hex)),
      maxFeePerGas(ctx, net),
    ])
    const cost = GASLESS_GAS * maxFee
    return {
      gasless: {
        supported: true, permitRequired: true, estimatedGasCost: cost.toString(), estimatedGasCostXDAI: formatUnits(cost, 18), currentNonce: Number(nonce),
        permitDomain: { ...domain, chainId: net.chainId, verifyingContract: q.fromToken },
      },
    }
  } catch {
    return {}
  }
}

/** What one gasless swap of a quote is: the permit to sign, the relayer's fee and the minimum the owner receives. */
async function plan(ctx: Ctx, quoteId: string) {
  const { config } = ctx.deps
  const tenant = tenantOf(ctx)
  const q = await findUserQuote(ctx.deps.database.db, tenant.id, ctx.actor.userId, quoteId)
  if (!q) throw new NotFoundError('Quote not found', { code: 'SWAP_QUOTE_NOT_FOUND' })
  if (!gaslessEnabled(config)) throw new BadRequestError('Gasless swaps are not enabled on this deployment', { code: 'SWAP_GASLESS_DISABLED' })
  const now = ctx.deps.clock.now()
  if (q.expiresAt <= now) throw new BadRequestError('The quote has expired: ask for a new one with POST /v1/swap/quote', { code: 'SWAP_QUOTE_EXPIRED' })
  const domain = eligible(q.fromChain, q.toChain, q.fromToken, q.toToken)
  if (!domain) {
    throw new BadRequestError(
      'This quote cannot be swapped gaslessly: gasless swaps are a euro stablecoin to the native coin on gnosis (the quote answers a gasless block when they are)',
      { code: 'SWAP_GASLESS_NOT_ELIGIBLE' },
    )
  }
  const w = await wallets.ownWallet(ctx, q.walletId)
  if (q.toAddress.toLowerCase() !== w.address.toLowerCase()) {
    throw new BadRequestError('A gasless swap pays the native coin to the wallet that signs the permit: ask for a quote without toAddress', { code: 'SWAP_GASLESS_NOT_ELIGIBLE' })
  }
  const token = q.fromToken as Hex
  const router = routerOf(config)!
  const net = await gnosis(ctx, tenant.settings, w.isTestnet)
  const [nonce, maxFee] = await Promise.all([
    ctx.deps.chain.guard(net.endpoint, 'permit nonce', () => net.rpc.permitNonce(token, w.address as Hex)),
    maxFeePerGas(ctx, net),
  ])
  const amountIn = BigInt(q.fromAmount)
  const toAmount = BigInt(q.toAmount)
  // the gas at the quote's own rate, in the stablecoin, rounded up
  const gasCost = GASLESS_GAS * maxFee
  const fee = toAmount > 0n ? (gasCost * amountIn + toAmount - 1n) / toAmount : amountIn
  if (fee >= amountIn) throw new BadRequestError(`The amount does not cover the relayer's fee for the gas (${fee} in the smallest unit)`, { code: 'SWAP_GASLESS_AMOUNT_TOO_SMALL' })
  const minAmountOut = (BigInt(q.toAmountMin) * (amountIn - fee)) / amountIn
  // the permit lasts as long as the quote
  const deadline = BigInt(Math.floor(q.expiresAt / 1000))
  const typedData = {
    domain: { name: domain.name, version: domain.version, chainId: net.chainId, verifyingContract: token },
    types: PERMIT_TYPES, primaryType: 'Permit' as const,
    message: { owner: w.address as Hex, spender: router, value: amountIn, nonce, deadline },
  }
  return { q, w, net, router, token, amountIn, fee, minAmountOut, deadline, nonce, gasCost, maxFee, typedData }
}
type Plan = Awaited<ReturnType<typeof plan>>

/** `POST /v1/swap/sign-permit`: the EIP-2612 typed data the owner signs for a gasless swap of the quote. */
export async function signPermit(ctx: Ctx, input: GaslessQuoteBody) {
  const p = await plan(ctx, input.quoteId)
  const m = p.typedData.message
  return {
    quoteId: p.q.id, walletId: p.w.id, owner: m.owner, spender: m.spender, value: m.value.toString(), nonce: Number(m.nonce), deadline: Number(m.deadline),
    relayerFee: p.fee.toString(), minAmountOut: p.minAmountOut.toString(), estimatedGasCost: p.gasCost.toString(),
    typedData: {
      ...p.typedData,
      types: { Permit: PERMIT_TYPES.Permit.map((f) => ({ ...f })) },
      message: { ...m, value: m.value.toString(), nonce: m.nonce.toString(), deadline: m.deadline.toString() },
    },
  }
}

/** `POST /v1/swap/execute-gasless`: a custodial wallet's permit signed with its key, then relayed. */
export async function executeGasless(ctx: Ctx, input: GaslessQuoteBody) {
  const p = await plan(ctx, input.quoteId)
  if (!isCustodial(p.w)) {
    throw new BadRequestError(
      'This wallet signs on the client: sign the typed data of POST /v1/swap/sign-permit and send it to POST /v1/swap/broadcast-gasless',
      { code: 'SWAP_GASLESS_CLIENT_SIGNS' },
    )
  }
  const secret = walletSecret(ctx.deps, p.w)
  let signature: Hex
  try {
    signature = await signTypedData({ privateKey: `0x${Buffer.from(secret).toString('hex')}`, ...p.typedData })
  } finally {
    secret.fill(0)
  }
  return relay(ctx, p, signature)
}

const HEX_SIG = /^0x[0-9a-fA-F]{130}$/

/** `POST /v1/swap/broadcast-gasless`: the owner's permit signature (as sign-permit asked), relayed. */
export async function broadcastGasless(ctx: Ctx, input: BroadcastGaslessBody) {
  const p = await plan(ctx, input.quoteId)
  const invalid = (why: string) => new BadRequestError(`The permit signature is not valid: ${why}. Sign the typed data POST /v1/swap/sign-permit answers`, { code: 'SWAP_PERMIT_SIGNATURE_INVALID' })
  if (!HEX_SIG.test(input.signature)) throw invalid('expected 65 bytes as 0x-prefixed hex (r ‖ s ‖ v)')
  const signer = await recoverTypedDataAddress({ ...p.typedData, signature: input.signature as Hex }).catch(() => null)
  if (!signer || signer.toLowerCase() !== p.w.address.toLowerCase()) {
    // a copy of a permit already relayed no longer matches (its nonce moved on): say what happened
    const relayed = await quoteRelayed(ctx, p.q.tenantId, p.q.userId, p.q.id)
    if (relayed) throw relayed
    throw invalid('it was not signed by the wallet for this permit (owner, router, amount, nonce and deadline)')
  }
  return relay(ctx, p, input.signature as Hex)
}

/** The deployment's relayer as a signer of the transactions module: one nonce lane per network for every tenant. */
function relayer(config: Config, network: string): RelaySigner {
  const key = config.swapGaslessRelayerPrivateKey as Hex
  const address = privateKeyToAccount(key).address
  return { address, nonceKey: relayerNonceKey(address, network), secret: () => hexToBytes(key) }
}

function lowGas(ctx: Ctx, network: string) {
  ctx.deps.metrics.swapRelayerLowGas(network)
  ctx.deps.logger.warn('gasless swap refused: the relayer cannot pay the gas; top up its native balance', { network })
  return new ServiceUnavailableError(
    'Gasless swaps are unavailable for now: the relayer cannot pay the network fee. Try again later, or swap with POST /v1/swap/execute from a wallet holding gas',
    { code: 'SWAP_RELAYER_LOW_GAS' },
  )
}

/**
 * Claimed (gasless-claims.ts: once per quote and per permit, within the daily budgets), simulated
 * (eth_call of the router's swapWithPermit from the relayer), then sent; a relay refused after
 * its claim releases it, having spent nothing.
 */
async function relay(ctx: Ctx, p: Plan, signature: Hex) {
  const network = networkId(p.w.isTestnet)
  const signer = relayer(ctx.deps.config, network)
  const sig = parseSignature(signature)
  const v = sig.v ?? BigInt(sig.yParity! + 27)
  const data = encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapWithPermit', args: [p.w.address as Hex, p.token, p.amountIn, p.fee, p.minAmountOut, p.deadline, Number(v), sig.r, sig.s] })
  const q = p.q
  const claim = await claimRelay(ctx, {
    tenantId: q.tenantId, userId: q.userId, quoteId: q.id, network, token: p.token, owner: p.w.address, permitNonce: p.nonce, gasCost: p.gasCost,
  })
  try {
    const simulated = await ctx.deps.chain.guard(p.net.endpoint, 'simulate', () => p.net.rpc.simulate({ from: signer.address as Hex, to: p.router, value: 0n, data, gas: GASLESS_GAS }))
    if ('revert' in simulated) {
      throw new BadRequestError(
        `The swap would fail on chain, so nothing was sent: ${simulated.revert}. Check the wallet's ${q.fromTokenSymbol} balance, or ask for a new quote`,
        { code: 'SWAP_GASLESS_SIMULATION_FAILED' },
      )
    }
    const balance = await ctx.deps.chain.guard(p.net.endpoint, 'balance', () => p.net.rpc.balance(signer.address as Hex))
    if (balance < p.gasCost) throw lowGas(ctx, network)
    const out = await transactions.createEvmCall(ctx, {
      walletId: p.w.id, tokenAddress: p.token, amount: p.amountIn, to: p.w.address, signer,
      call: { to: p.router, value: 0n, data, gasLimit: GASLESS_GAS },
      record: {
        type: 'swap', quoteId: q.id,
        metadata: {
          gasless: true, relayer: signer.address, relayerFee: p.fee.toString(), toChain: q.toChain, toToken: q.toToken, toTokenSymbol: q.toTokenSymbol,
          toTokenDecimals: q.toTokenDecimals, toAmount: q.toAmount, toAmountMin: p.minAmountOut.toString(), tool: 'gasless-permit', router: p.router,
        },
      },
      onRecorded: (tx, transactionId, now) => attachRelay(tx, claim, transactionId, now),
    })
    return { ...out, type: 'swap' as const, quoteId: q.id, gasless: true as const, relayer: signer.address, relayerFee: p.fee.toString(), minAmountOut: p.minAmountOut.toString() }
  } catch (err) {
    // a release that fails leaves the claim to be taken over after its 2 minutes; the relay's own error is the answer
    await releaseRelay(ctx, claim).catch((e: unknown) => ctx.deps.logger.warn('gasless relay claim not released', { error: (e as Error).message }))
    // the relayer's balance fell short between the check and the estimate
    if (err instanceof AppError && err.code === 'TRANSACTION_WOULD_FAIL' && /insufficient funds/.test(err.message)) throw lowGas(ctx, network)
    throw err
  }
}
