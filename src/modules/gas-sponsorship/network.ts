/**
 * Where a network's sponsorship goes: its bundler (BUNDLER_URL_<NETWORK>), its paymaster
 * (PAYMASTER_ADDRESS_<NETWORK>), the paymaster's signer (sealed in the database: signer.ts) and the
 * tenant's RPC. Without any of them, sponsorship is off on that network and says so (503
 * GAS_SPONSORSHIP_NOT_CONFIGURED). Also the deposit watch: the paymaster's deposit in the
 * EntryPoint, read at most every DEPOSIT_CACHE_MS; below PAYMASTER_MIN_DEPOSIT_WEI every
 * sponsored route answers 503 PAYMASTER_DEPOSIT_LOW, the metric counts it and the tenant's
 * webhook gets `gas.paymaster.deposit_low` (at most once an hour per tenant and network).
 */
import type { LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { BundlerEndpoint, BundlerGateway } from '../../adapters/bundler'
import type { Deps } from '../../deps'
import type { StoredSettings } from '../tenants'
import { endpointFor, lookupChain } from '../tokens'
import { nativeUsdPrice } from '../portfolio'
import { publishEvent } from '../webhooks'
import { depositLow, notConfigured } from './errors'
import { openSigner } from './signer'

const DEPOSIT_CACHE_MS = 10_000
/** how long an opened signer is kept in memory: a signer replaced by `slipway paymaster signer` is used within this */
const SIGNER_CACHE_MS = 60_000
const signers = new WeakMap<Deps, Map<string, { account: LocalAccount; at: number }>>()

/** The network's paymaster signer, opened from its sealed row (importing PAYMASTER_SIGNER_PRIVATE_KEY on first use), or null. */
async function signerOf(deps: Deps, network: string): Promise<LocalAccount | null> {
  const now = deps.clock.now()
  const byNetwork = signers.get(deps) ?? new Map<string, { account: LocalAccount; at: number }>()
  signers.set(deps, byNetwork)
  const hit = byNetwork.get(network)
  if (hit && now - hit.at < SIGNER_CACHE_MS) return hit.account
  const opened = await openSigner(deps, network, (key) => privateKeyToAccount(key as `0x${string}`).address)
  if (!opened) return null
  const account = privateKeyToAccount(opened.key)
  byNetwork.set(network, { account, at: now })
  return account
}
const EVENT_EVERY_MS = 3_600_000

export interface Sponsor {
  endpoint: BundlerEndpoint
  gateway: BundlerGateway
  signer: LocalAccount
  isTestnet: boolean
}

/** The network's sponsorship set-up for the tenant; throws 503 GAS_SPONSORSHIP_NOT_CONFIGURED when a piece is missing. */
export async function sponsorFor(deps: Deps, settings: StoredSettings | null, network: string): Promise<Sponsor> {
  const found = lookupChain(network)
  if (!found || found.chain.family !== 'evm' || !found.network.chainId) throw notConfigured(network, 'an EVM network')
  const bundlerUrl = deps.config.bundlerUrls[found.network.id]
  if (!bundlerUrl) throw notConfigured(found.network.id, `a bundler (BUNDLER_URL_${found.network.id.toUpperCase().replace(/-/g, '_')})`)
  const paymaster = deps.config.paymasterAddresses[found.network.id]
  if (!paymaster) throw notConfigured(found.network.id, `a paymaster (PAYMASTER_ADDRESS_${found.network.id.toUpperCase().replace(/-/g, '_')})`)
  const signer = await signerOf(deps, found.network.id)
  if (!signer) throw notConfigured(found.network.id, `the paymaster signer (slipway paymaster signer --network ${found.network.id})`)
  const isTestnet = found.network.id !== found.chain.id
  const { endpoint } = endpointFor(deps.config, settings, found.chain.id, isTestnet)
  return {
    endpoint: { network: found.network.id, bundlerUrl, rpcUrl: endpoint.rpcUrl, chainId: found.network.chainId, paymaster: paymaster as `0x${string}` },
    gateway: await deps.bundler(),
    signer,
    isTestnet,
  }
}

const deposits = new Map<string, { wei: bigint; at: number }>()
const told = new Map<string, number>()

/** The paymaster's deposit (cached briefly); answers it when at or above the threshold, else refuses (metric, webhook, 503). */
export async function ensureDeposit(deps: Deps, s: Sponsor, tenantId: string | null): Promise<bigint> {
  const now = deps.clock.now()
  const key = `${s.endpoint.network}|${s.endpoint.paymaster}`
  let cached = deposits.get(key)
  if (!cached || now - cached.at > DEPOSIT_CACHE_MS) {
    cached = { wei: await s.gateway.deposit(s.endpoint), at: now }
    deposits.set(key, cached)
  }
  if (cached.wei >= BigInt(deps.config.paymasterMinDepositWei)) return cached.wei
  deps.metrics.paymasterDepositLow(s.endpoint.network)
  deps.logger.warn('paymaster deposit below threshold', { network: s.endpoint.network, depositWei: cached.wei.toString() })
  const tk = `${tenantId}|${key}`
  if (tenantId && now - (told.get(tk) ?? 0) > EVENT_EVERY_MS) {
    told.set(tk, now)
    await deps.database.write((tx) => publishEvent(tx, {
      tenantId, environment: s.isTestnet ? 'sandbox' : 'production', type: 'gas.paymaster.deposit_low', occurredAt: now,
      data: { network: s.endpoint.network, paymaster: s.endpoint.paymaster, depositWei: cached!.wei.toString(), thresholdWei: deps.config.paymasterMinDepositWei },
    }, now))
  }
  throw depositLow(s.endpoint.network)
}

/** Forgets the cached deposits (after a top-up, and in tests) and the opened signers of `deps`. */
export function forgetDeposits(deps?: Deps) {
  deposits.clear()
  if (deps) signers.delete(deps)
}

/**
 * The USD price of the network's native coin, the price adapter's (through the portfolio's kept
 * prices; a testnet's coin at its mainnet's price), read before the write that reserves a
 * sponsorship and recorded with it; null when there is none.
 */
export async function usdRateFor(deps: Deps, network: string): Promise<{ usd: string; asOf: number } | null> {
  const found = lookupChain(network)
  return found ? nativeUsdPrice(deps, found.chain.id) : null
}
