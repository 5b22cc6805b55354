/**
 * MPC flows (docs/mpc.md): configuration, DKG start (also at registration), wallet
 * registration from a finished DKG, signing start for a prepared transaction, the service
 * party's token and the operators' list. The relay itself is relay.ts.
 */
import { loadMpcEngine } from '../../adapters/mpc/engine'
import type { MpcEngine } from '../../adapters/mpc/port'
import type { Ctx, SignedTenant } from '../../context'
import type { Deps } from '../../deps'
import type { Tx } from '../../db/client'
import { AppError, BadRequestError, ConflictError, ForbiddenError, NotFoundError, ServiceUnavailableError, TooManyRequestsError } from '../../lib/errors'
import { scheduleJob } from '../../jobs/outbox'
import { iso } from '../../lib/clock'
import { isUuid, newId } from '../../lib/ids'
import { errorSummary } from '../../lib/logger'
import { tenantOf, operatorTenant, settingsOf } from '../tenants'
import type { StoredSettings } from '../tenants'
import { CHAINS, chainEnabled } from '../tokens'
import * as txRepo from '../transactions'
import { resolveChain, wallets, walletView } from '../wallets'
import * as walletsRepo from '../wallets'
import { sessionExpired, sessionNotFound } from './access'
import { BACKUP, DEVICE, MAX_MESSAGE_BYTES, MAX_SESSION_MESSAGES, PARTY_ROLES, SERVICE, type DkgStartBody, type RegisterWalletBody, type SignStartBody } from './model'
import * as repo from './repo'
import { mintServiceToken } from './service-token'
import { MPC_SERVICE_PARTY_TOPIC } from './topics'
import { addressOfPublicKey, sessionView } from './views'

const SWEEP_EVERY_MS = 60_000
let lastSweep = 0

const notMpcTenant = () => new ForbiddenError('This tenant does not use MPC wallets (walletMode is not `mpc`)', { code: 'MPC_NOT_ENABLED' })

const noEngine = () => new ServiceUnavailableError(
  'This deployment has no MPC engine: MPC wallets are off until an operator sets MPC_ENGINE (docs/mpc.md, "The engine")',
  { code: 'MPC_ENGINE_NOT_CONFIGURED' },
)

/** The deployment's engine (its module, not its WebAssembly: that loads with the first protocol run); 503 when none is configured. */
async function engineOf(deps: Deps): Promise<MpcEngine> {
  if (!deps.config.mpcEngine) throw noEngine()
  return loadMpcEngine(deps.config.mpcEngine)
}

export async function config(ctx: Ctx) {
  const tenant = tenantOf(ctx)
  const engine = ctx.deps.config.mpcEngine ? await engineOf(ctx.deps) : undefined
  return {
    enabled: tenant.settings.walletMode === 'mpc' && engine !== undefined,
    protocol: 'DKLs23' as const,
    library: engine?.library ?? null,
    threshold: 2,
    participants: 3,
    parties: PARTY_ROLES.map((role, partyId) => ({ partyId, role, heldBy: ['the user\'s device', 'Slipway (sealed at rest)', 'the user, encrypted to their recovery key'][partyId]! })),
    chainPath: 'm',
    chains: CHAINS.filter((c) => c.family === 'evm' && chainEnabled(tenant.settings, c.id)).map((c) => c.id),
    rounds: engine ? { ...engine.rounds } : null,
    sessionTtlSeconds: ctx.deps.config.mpcSessionTtlSeconds,
    messageLimitBytes: MAX_MESSAGE_BYTES,
    messagesPerSession: MAX_SESSION_MESSAGES,
  }
}

function evmNetwork(settings: StoredSettings, chain: string, isTestnet?: boolean) {
  const net = resolveChain(settings, chain, isTestnet)
  if (net.chain.family !== 'evm') {
    throw new BadRequestError(`MPC wallets are EVM only: ${net.chain.id} signs with EdDSA, which needs threshold EdDSA (FROST), not DKLs23 (docs/mpc.md)`, { code: 'MPC_CHAIN_UNSUPPORTED' })
  }
  return net
}

/**
 * Deletes every tenant's expired relay messages, at most once a minute per process, in a write of
 * its own after the user's (never inside it: a user's write does not pay for other tenants' rows).
 */
async function sweepExpired(deps: Deps) {
  const now = deps.clock.now()
  if (now - lastSweep <= SWEEP_EVERY_MS) return
  lastSweep = now
  await deps.database.write((tx) => repo.deleteExpiredMessages(tx, now)).catch((err: unknown) => deps.logger.warn('mpc: expired messages not swept', errorSummary(err)))
}

/** What a caller says of a new session; the rest (its id, state and times) `openSession` sets. */
type NewSession = Omit<
  repo.MpcSessionRow,
  'id' | 'status' | 'publicKey' | 'txHash' | 'failureReason' | 'registeredWalletId' | 'expiresAt' | 'createdAt' | 'updatedAt' | 'transactionId'
> & { transactionId?: string | null }

/** Writes a session with its parties' job (the service party's, when it takes part) in `tx`. */
async function openSession(deps: Deps, tx: Tx, row: NewSession) {
  const now = deps.clock.now()
  const s: repo.MpcSessionRow = {
    ...row, id: newId(), transactionId: row.transactionId ?? null, status: 'open', publicKey: null, txHash: null, failureReason: null, registeredWalletId: null,
    expiresAt: now + deps.config.mpcSessionTtlSeconds * 1000, createdAt: now, updatedAt: now,
  }
  await repo.insertSession(tx, s)
  if (s.parties.includes(SERVICE)) await scheduleJob(tx, { id: `mpc-party:${s.id}`, topic: MPC_SERVICE_PARTY_TOPIC, tenantId: s.tenantId, payload: { sessionId: s.id } }, now)
  return s
}

/** DKG starts a user may make per minute: each costs the service party about a second of CPU. */
export const DKG_STARTS_PER_MINUTE = 20

export async function dkgStart(ctx: Ctx, input: DkgStartBody) {
  const tenant = tenantOf(ctx)
  if (tenant.settings.walletMode !== 'mpc') throw notMpcTenant()
  await engineOf(ctx.deps)
  const limit = ctx.deps.rateLimiter.hit(`mpc-dkg|${tenant.id}|${ctx.actor.userId}`, DKG_STARTS_PER_MINUTE, 60_000)
  if (!limit.allowed) throw new TooManyRequestsError(limit.resetSeconds)
  const net = evmNetwork(tenant.settings, input.chain, input.isTestnet)
  const s = await ctx.deps.database.write((tx) => openSession(ctx.deps, tx, {
    tenantId: tenant.id, userId: ctx.actor.userId, kind: 'dkg', chain: net.chain.id, isTestnet: net.network.isTestnet, parties: [DEVICE, SERVICE, BACKUP],
    walletId: null, preparedId: null, messageHash: null,
  }))
  await sweepExpired(ctx.deps)
  return sessionView(s, [])
}

/**
 * Registration on an `mpc` tenant with `wallet: { option: "create", chain }`: the DKG session
 * the new user's device joins next, opened in the registration's transaction. Undefined
 * for other tenants (they make custodial wallets, or none).
 */
export async function registrationDkg(deps: Deps, tx: Tx, tenant: SignedTenant, user: { id: string }, chain: string) {
  const settings = settingsOf({ deps }, { settings: tenant.settings, name: tenant.name })
  if (settings.walletMode !== 'mpc') return undefined
  const net = evmNetwork(settings, chain)
  const s = await openSession(deps, tx, {
    tenantId: tenant.id, userId: user.id, kind: 'dkg', chain: net.chain.id, isTestnet: net.network.isTestnet, parties: [DEVICE, SERVICE, BACKUP],
    walletId: null, preparedId: null, messageHash: null,
  })
  return sessionView(s, [])
}

/** Checks, before the user is written, that an `mpc` tenant's registration can open its DKG on `chain`. */
export function validateRegistrationDkg(deps: Deps, tenant: SignedTenant, chain: string) {
  const settings = settingsOf({ deps }, { settings: tenant.settings, name: tenant.name })
  if (settings.walletMode !== 'mpc') return
  if (!deps.config.mpcEngine) throw noEngine()
  evmNetwork(settings, chain)
}

export async function registerWallet(ctx: Ctx, input: RegisterWalletBody) {
  const tenant = tenantOf(ctx)
  if (tenant.settings.walletMode !== 'mpc') throw notMpcTenant()
  if (!isUuid(input.sessionId)) throw sessionNotFound()
  // Every read that decides is made in the write transaction, on the primary: on an edge the
  // replica may not have the other processes' reports yet, and two registrations race here.
  const { row, publicKey, sessionId } = await ctx.deps.database.write(async (tx) => {
    const s = await repo.findSession(tx, tenant.id, input.sessionId)
    if (!s || s.userId !== ctx.actor.userId || s.kind !== 'dkg') throw sessionNotFound()
    if (s.registeredWalletId) throw new ConflictError('A wallet was already registered from this DKG session', { code: 'MPC_WALLET_ALREADY_REGISTERED', details: { walletId: s.registeredWalletId } })
    if (s.expiresAt <= ctx.deps.clock.now()) throw sessionExpired()
    const results = await repo.listResults(tx, tenant.id, s.id)
    const keys = new Set(results.map((r) => r.publicKey))
    if (keys.size > 1 || s.status === 'failed') {
      const reported = results.map((r) => ({ partyId: r.partyId, publicKey: r.publicKey }))
      throw new ConflictError('The parties reported different public keys: this key generation failed; start a new one', {
        code: 'MPC_PUBLIC_KEY_MISMATCH',
        details: { results: reported },
      })
    }
    if (results.length < s.parties.length || s.status !== 'completed' || !s.publicKey) {
      throw new ConflictError(
        `Key generation is not finished: ${results.length} of ${s.parties.length} parties reported their public key`,
        { code: 'MPC_DKG_INCOMPLETE', details: { reported: results.map((r) => r.partyId) } },
      )
    }
    const share = await repo.findShareOfSession(tx, tenant.id, s.id)
    if (!share || share.publicKey !== s.publicKey) throw new ConflictError('The service party holds no share of this key', { code: 'MPC_PUBLIC_KEY_MISMATCH' })
    const net = resolveChain(tenant.settings, s.chain, s.isTestnet)
    const w = await wallets.addWallet(ctx.deps, tx, {
      tenantId: tenant.id, userId: ctx.actor.userId, net, address: addressOfPublicKey(s.publicKey),
      label: input.label ?? null, walletType: 'managed', scheme: 'mpc_tss', isPrimary: input.isPrimary ?? false,
    })
    if (!(await repo.markRegistered(tx, tenant.id, s.id, w.id, ctx.deps.clock.now()))) {
      throw new ConflictError('A wallet was already registered from this DKG session', { code: 'MPC_WALLET_ALREADY_REGISTERED' })
    }
    await repo.bindShare(tx, tenant.id, s.id, w.id)
    return { row: w, publicKey: s.publicKey, sessionId: s.id }
  })
  return { ...walletView(row), publicKey, dkgSessionId: sessionId }
}

export async function signStart(ctx: Ctx, walletId: string, input: SignStartBody) {
  const tenant = tenantOf(ctx)
  if (!isUuid(walletId)) throw new NotFoundError('Wallet not found')
  await engineOf(ctx.deps)
  const parties = [...(input.parties ?? [DEVICE, SERVICE])].sort()
  // read in the write transaction (the primary): the send may have been prepared on another process a moment ago
  const s = await ctx.deps.database.write(async (tx) => {
    const wallet = await walletsRepo.findUserWallet(tx, tenant.id, ctx.actor.userId, walletId)
    if (!wallet) throw new NotFoundError('Wallet not found')
    if (wallet.keyManagementScheme !== 'mpc_tss') throw new BadRequestError('This wallet is not an MPC wallet', { code: 'MPC_NOT_AN_MPC_WALLET' })
    const prepared = isUuid(input.preparedTransactionId) ? await txRepo.findUserPrepared(tx, tenant.id, ctx.actor.userId, input.preparedTransactionId) : undefined
    if (!prepared || prepared.walletId !== wallet.id) throw new NotFoundError('Prepared transaction not found for this wallet', { code: 'PREPARED_TX_NOT_FOUND' })
    if (prepared.status === 'used') throw new ConflictError('This prepared transaction was already broadcast', { code: 'PREPARED_TX_ALREADY_USED' })
    if (prepared.expiresAt <= ctx.deps.clock.now()) throw new AppError(410, 'GoneError', 'This prepared transaction has expired; prepare a new one', { code: 'PREPARED_TX_EXPIRED' })
    if (parties.includes(SERVICE) && !(await repo.findShareOfWallet(tx, tenant.id, wallet.id))) {
      throw new ConflictError('The service party holds no share of this wallet', { code: 'MPC_NO_SERVICE_SHARE' })
    }
    return openSession(ctx.deps, tx, {
      tenantId: tenant.id, userId: ctx.actor.userId, kind: 'sign', chain: wallet.chain, isTestnet: wallet.isTestnet, parties,
      walletId: wallet.id, preparedId: prepared.id, transactionId: prepared.transactionId, messageHash: prepared.signingPayload,
    })
  })
  await sweepExpired(ctx.deps)
  return sessionView(s, [])
}

export function serviceToken(deps: Deps, tenant: SignedTenant) {
  const t = mintServiceToken(deps.jwtKey, tenant.id, deps.clock.now(), deps.config.mpcSessionTtlSeconds)
  return { token: t.token, tokenType: 'Bearer' as const, expiresIn: t.expiresIn, expiresAt: iso(t.expiresAt) }
}

export async function adminWallets(ctx: Ctx, tenantId: string, q: { limit?: number; offset?: number }) {
  const tenant = await operatorTenant(ctx, tenantId)
  const limit = q.limit ?? 50
  const offset = q.offset ?? 0
  const db = ctx.deps.database.db
  const [rows, total] = await Promise.all([repo.listTenantShares(db, tenant.id, limit, offset), repo.countTenantShares(db, tenant.id)])
  const data = []
  for (const r of rows) {
    const w = await walletsRepo.findWallet(db, tenant.id, r.walletId!)
    if (!w) continue
    data.push({ walletId: w.id, userId: r.userId, address: w.address, chain: w.chain, isTestnet: w.isTestnet, publicKey: r.publicKey, dkgSessionId: r.sessionId, createdAt: iso(w.createdAt) })
  }
  return { data, total, limit, offset, hasMore: offset + rows.length < total }
}
