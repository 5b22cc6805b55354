/**
 * Reads of the Aave Pool for the lending verbs, and the rate samples they leave behind.
 * Every read of a reserve's data records its supply rate (one sample per tenant, network,
 * asset and `AAVE_RATE_SAMPLE_SECONDS` slot) and keeps the sampling job following the
 * reserve, so rate history accrues from what users look at (docs/lending.md "Rate history").
 */
import type { Hex } from 'viem'
import type { AavePoolRpc, ChainEndpoint } from '../../adapters/chain/port'
import type { Deps } from '../../deps'
import { BadRequestError } from '../../lib/errors'
import { scheduleJob } from '../../jobs/outbox'
import { findTenant, settingsOf } from '../tenants'
import type { StoredSettings } from '../tenants'
import { chainByFamily, endpointFor, namedChain } from '../tokens'
import { poolOf } from './pools'
import { findFollow, insertRateSample, touchFollow } from './repo'
import { FOLLOW_FOR_MS, RATE_SAMPLE_TOPIC } from './topics'

const ZERO = /^0x0{40}$/i

export interface Market {
  tenantId: string
  /** registry id */
  network: string
  endpoint: ChainEndpoint
  pool: Hex
  rpc: AavePoolRpc
}

/** The Pool on a network for a tenant (its RPC as configured for the tenant); null where there is none. */
export async function marketFor(deps: Deps, tenantId: string, settings: StoredSettings, chain: string, isTestnet: boolean): Promise<Market | null> {
  const def = chainByFamily(chain)
  if (!def || def.family !== 'evm') return null
  const network = isTestnet ? def.testnet.id : def.mainnet.id
  const pool = await poolOf(deps.config, network)
  if (!pool) return null
  const { endpoint } = endpointFor(deps.config, settings, chain, isTestnet)
  return { tenantId, network, endpoint, pool, rpc: await deps.chain.aavePool(endpoint) }
}

export async function reserveOf(deps: Deps, m: Market, asset: string, opts: { read: boolean } = { read: true }) {
  const r = await deps.chain.guard(m.endpoint, 'aave reserve', () => m.rpc.reserveData(m.pool, asset as Hex))
  const listed = !ZERO.test(r.aTokenAddress)
  if (listed) await recordRate(deps, m, asset, r.currentLiquidityRate, opts.read)
  return { ...r, listed }
}

/** The reserve, or 400 `AAVE_RESERVE_NOT_LISTED` when the pool does not list the asset. */
export async function listedReserve(deps: Deps, m: Market, asset: string) {
  const r = await reserveOf(deps, m, asset)
  if (!r.listed) throw new BadRequestError(`The Aave pool on ${m.network} does not list ${asset} as a reserve`, { code: 'AAVE_RESERVE_NOT_LISTED' })
  return r
}

const slotOf = (deps: Deps, t: number) => {
  const every = deps.config.aaveRateSampleSeconds * 1000
  return { slot: Math.floor(t / every) * every, next: Math.floor(t / every) * every + every }
}

/**
 * One write: the sample of the current slot (the first read of a slot wins), and, for a
 * user's read, the follow mark and the job sampling the next slot (its id is the slot's, so
 * many reads schedule it once).
 */
async function recordRate(deps: Deps, m: Market, asset: string, rate: bigint, read: boolean) {
  const now = deps.clock.now()
  const { slot, next } = slotOf(deps, now)
  const key = asset.toLowerCase()
  await deps.database.write(async (tx) => {
    await insertRateSample(tx, { tenantId: m.tenantId, network: m.network, asset: key, slot, pool: m.pool, liquidityRate: rate.toString(), sampledAt: now })
    if (!read) return
    await touchFollow(tx, { tenantId: m.tenantId, network: m.network, asset: key, pool: m.pool, lastReadAt: now })
    await scheduleSample(tx, m.tenantId, m.network, key, next, now)
  })
}

function scheduleSample(tx: Parameters<typeof insertRateSample>[0], tenantId: string, network: string, asset: string, runAt: number, now: number) {
  return scheduleJob(tx, { id: `lending-rate:${tenantId}:${network}:${asset}:${runAt}`, topic: RATE_SAMPLE_TOPIC, tenantId, payload: { network, asset }, runAt }, now)
}

/**
 * The `lending.rate.sample` job: samples the reserve's rate for the tenant and schedules the
 * next slot, while someone read the reserve in the last 30 days (FOLLOW_FOR_MS).
 */
export async function runRateSampleJob(deps: Deps, tenantId: string | null, payload: Record<string, unknown>) {
  const network = String(payload.network)
  const asset = String(payload.asset)
  if (!tenantId) return
  const follow = await findFollow(deps.database.db, tenantId, network, asset)
  const now = deps.clock.now()
  if (!follow || follow.lastReadAt + FOLLOW_FOR_MS < now) return
  const tenant = await findTenant(deps.database.db, tenantId)
  if (!tenant) return
  const named = namedChain(network)
  if (!named) return
  const m = await marketFor(deps, tenantId, settingsOf({ deps }, tenant), named.family, named.isTestnet === true)
  if (!m) return
  await reserveOf(deps, m, asset, { read: false })
  const { next } = slotOf(deps, now)
  await deps.database.write((tx) => scheduleSample(tx, tenantId, network, asset, next, now))
}
