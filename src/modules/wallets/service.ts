/**
 * Wallets: custodial creation and import, listing, primary selection, deletion and
 * key export. Non-custodial registration and custody migration are in custody.ts,
 * balances in balances.ts.
 */
import { and, eq, isNotNull, isNull, lt, or } from 'drizzle-orm'
import type { Tx } from '../../db/client'
import type { Deps } from '../../deps'
import type { SignedTenant } from '../../context'
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { iso } from '../../lib/clock'
import { isUuid, newId } from '../../lib/ids'
import { verifyPassword } from '../../lib/passwords'
import type { Ctx } from '../../context'
import { recordActivity } from '../activity/repo'
import { findTenant, settingsOf } from '../tenants/service'
import type { StoredSettings } from '../tenants/settings'
import { chainEnabled, lookupChain, namedChain, type ResolvedNetwork } from '../tokens/registry'
import * as usersRepo from '../users/repo'
import {
  keyFormatOf, addressKeyOf, addressOf, deriveFromMnemonic, encryptToX25519, exportFormat, generateKey, isValidMnemonic, openKey,
  parsePrivateKey, parseX25519PublicKey, sealKey,
} from './keys'
import * as repo from './repo'
import { wallets, walletExportTokens, type KeyScheme, type WalletRow } from './schema'
import { walletView } from './view'

export const EXPORT_TOKEN_TTL_MS = 5 * 60 * 1000

export interface TenantContext {
  id: string
  settings: StoredSettings
}

/** The caller's tenant and its settings; wallets belong to tenant users, so platform admins have none. */
export async function callerTenant(ctx: Ctx): Promise<TenantContext> {
  if (!ctx.actor.tenantId) throw new ForbiddenError('Wallets belong to tenant users; platform admins have none')
  const row = await findTenant(ctx.deps.database.db, ctx.actor.tenantId)
  if (!row) throw new NotFoundError('Tenant not found')
  return { id: row.id, settings: settingsOf(ctx, row) }
}

/**
 * The chain a request names: a family id (network from `isTestnet`) or a registry id
 * (a testnet id implies `isTestnet: true`). Unknown or disabled chains are refused.
 */
export function resolveChain(settings: StoredSettings | null, chain: string, isTestnet = false): ResolvedNetwork {
  const found = lookupChain(chain)
  if (!found || !chainEnabled(settings, found.chain.id)) throw new BadRequestError(`Unsupported chain: ${chain}`)
  const testnet = found.network.isTestnet || isTestnet
  return { chain: found.chain, network: testnet ? found.chain.testnet : found.chain.mainnet }
}

function requireCustodialMode(settings: StoredSettings) {
  if (settings.walletMode === 'mpc') throw new BadRequestError('This tenant uses MPC wallets: create wallets with the DKG start flow (POST /v1/mpc/wallets/dkg/start)')
  if (settings.walletMode === 'non_custodial') throw new BadRequestError('This tenant uses non-custodial wallets: register a client wallet (GET /v1/wallets/client/challenge, then POST /v1/wallets/client)')
}

const primaryExists = () => new ConflictError('A primary wallet already exists for this chain and network type', { code: 'PRIMARY_WALLET_EXISTS' })

export interface NewWallet {
  tenantId: string
  userId: string
  net: ResolvedNetwork
  address: string
  label: string | null
  walletType: WalletRow['walletType']
  scheme: KeyScheme
  isPrimary: boolean
  /** the private key to keep (custodial), or none */
  secret?: Uint8Array
}

/** Inserts a wallet inside the caller's transaction, sealing its key; refuses a second primary or a known address. */
export async function insertWallet(deps: Deps, tx: Tx, w: NewWallet): Promise<WalletRow> {
  const isTestnet = w.net.network.isTestnet
  const chain = w.net.chain.id
  const addressKey = addressKeyOf(w.net.chain.family, w.address)
  if (w.isPrimary && (await repo.findPrimary(tx, w.tenantId, w.userId, chain, isTestnet))) throw primaryExists()
  if (await repo.findByAddress(tx, w.tenantId, chain, isTestnet, addressKey)) {
    throw new ConflictError('This address is already registered as a wallet on this chain and network')
  }
  const id = newId()
  const now = deps.clock.now()
  const sealed = w.secret ? sealKey(deps.sealer, { tenantId: w.tenantId, walletId: id, address: w.address }, w.secret) : null
  return repo.insertWallet(tx, {
    id, tenantId: w.tenantId, userId: w.userId, chain, isTestnet, address: w.address, addressKey, label: w.label,
    walletType: w.walletType, keyManagementScheme: w.scheme, isPrimary: w.isPrimary, isWatchOnly: false,
    dataKeyWrapped: sealed?.dataKeyWrapped ?? null, keySealed: sealed?.keySealed ?? null, keyVersion: sealed?.keyVersion ?? null,
    migrationDeviceId: null, createdAt: now, updatedAt: now, deletedAt: null,
  })
}

export async function createWallet(ctx: Ctx, input: { chain: string; name?: string; isPrimary?: boolean; isTestnet?: boolean }) {
  const tenant = await callerTenant(ctx)
  const net = resolveChain(tenant.settings, input.chain, input.isTestnet)
  requireCustodialMode(tenant.settings)
  const key = generateKey(net.chain.family)
  try {
    const row = await ctx.deps.database.write((tx) => insertWallet(ctx.deps, tx, {
      tenantId: tenant.id, userId: ctx.actor.userId, net, address: key.address, label: input.name ?? null,
      walletType: 'managed', scheme: 'aes_single', isPrimary: input.isPrimary ?? false, secret: key.secret,
    }))
    return walletView(row)
  } finally {
    key.secret.fill(0)
  }
}

export interface ImportInput {
  chain: string
  privateKey?: string
  mnemonic?: string
  accountIndex?: number
  name?: string
  isPrimary?: boolean
  isTestnet?: boolean
}

export async function importWallet(ctx: Ctx, input: ImportInput) {
  const tenant = await callerTenant(ctx)
  const net = resolveChain(tenant.settings, input.chain, input.isTestnet)
  requireCustodialMode(tenant.settings)
  if ((input.privateKey === undefined) === (input.mnemonic === undefined)) throw new BadRequestError('Provide exactly one of privateKey or mnemonic')
  const family = net.chain.family
  let secret: Uint8Array | null
  if (input.mnemonic !== undefined) {
    // Messages never repeat the submitted secret.
    if (!isValidMnemonic(input.mnemonic)) throw new BadRequestError('mnemonic is not a valid BIP-39 English mnemonic')
    secret = deriveFromMnemonic(family, input.mnemonic, input.accountIndex ?? 0)
  } else {
    if (input.accountIndex !== undefined) throw new BadRequestError('accountIndex applies to mnemonic imports only')
    secret = parsePrivateKey(family, input.privateKey!)
    if (!secret) throw new BadRequestError(family === 'evm' ? 'privateKey must be 32 bytes of hex' : 'privateKey must be a base58 secret key (64 or 32 bytes) or a JSON byte array')
  }
  try {
    const address = addressOf(family, secret)
    const row = await ctx.deps.database.write((tx) => insertWallet(ctx.deps, tx, {
      tenantId: tenant.id, userId: ctx.actor.userId, net, address, label: input.name ?? null,
      walletType: 'imported', scheme: 'aes_single', isPrimary: input.isPrimary ?? false, secret: secret!,
    }))
    return walletView(row)
  } finally {
    secret.fill(0)
  }
}

/** A wallet of the caller; anyone else's id (or another tenant's) answers 404. */
export async function ownWallet(ctx: Ctx, id: string): Promise<WalletRow> {
  if (!ctx.actor.tenantId || !isUuid(id)) throw new NotFoundError('Wallet not found')
  const row = await repo.findUserWallet(ctx.deps.database.db, ctx.actor.tenantId, ctx.actor.userId, id)
  if (!row) throw new NotFoundError('Wallet not found')
  return row
}

export async function listWallets(ctx: Ctx, input: { limit: number; offset: number; chain?: string; isTestnet?: boolean }) {
  if (!ctx.actor.tenantId) return { rows: [], total: 0 }
  // `chain=sepolia` lists the Sepolia wallets, as `chain=ethereum&isTestnet=true` does
  const named = input.chain ? namedChain(input.chain) : undefined
  if (named?.isTestnet && input.isTestnet === false) return { rows: [], total: 0 }
  const filter = { ...input, chain: named?.family ?? input.chain, isTestnet: named?.isTestnet ?? input.isTestnet }
  const { rows, total } = await repo.listUserWallets(ctx.deps.database.db, ctx.actor.tenantId, ctx.actor.userId, filter)
  return { rows: rows.map(walletView), total }
}

export async function getWallet(ctx: Ctx, id: string) {
  return walletView(await ownWallet(ctx, id))
}

/**
 * Soft delete: the row stays for history (transactions refer to it) but its key
 * material is erased at once. The primary wallet cannot be deleted.
 */
export async function deleteWallet(ctx: Ctx, id: string) {
  const w = await ownWallet(ctx, id)
  const now = ctx.deps.clock.now()
  await ctx.deps.database.write(async (tx) => {
    const cur = await repo.findUserWallet(tx, w.tenantId, w.userId, w.id)
    if (!cur) throw new NotFoundError('Wallet not found')
    if (cur.isPrimary) throw new BadRequestError('The primary wallet cannot be deleted; make another wallet primary first')
    await tx.update(wallets).set({ deletedAt: now, updatedAt: now, dataKeyWrapped: null, keySealed: null, migrationDeviceId: null })
      .where(and(eq(wallets.tenantId, w.tenantId), eq(wallets.id, w.id)))
  })
}

/**
 * Makes a wallet the primary one of its chain and network type, demoting the previous
 * one in the same transaction (writes are serialised and a partial unique index
 * holds the invariant, so concurrent calls end with exactly one primary).
 * `isPrimary: false` unsets it.
 */
export async function setPrimary(ctx: Ctx, id: string, isPrimary = true) {
  const w = await ownWallet(ctx, id)
  const now = ctx.deps.clock.now()
  const row = await ctx.deps.database.write(async (tx) => {
    const cur = await repo.findUserWallet(tx, w.tenantId, w.userId, w.id)
    if (!cur) throw new NotFoundError('Wallet not found')
    if (isPrimary) {
      await tx.update(wallets).set({ isPrimary: false, updatedAt: now }).where(and(
        eq(wallets.tenantId, cur.tenantId), eq(wallets.userId, cur.userId), eq(wallets.chain, cur.chain),
        eq(wallets.isTestnet, cur.isTestnet), eq(wallets.isPrimary, true), isNull(wallets.deletedAt),
      ))
    }
    await tx.update(wallets).set({ isPrimary, updatedAt: now }).where(and(eq(wallets.tenantId, cur.tenantId), eq(wallets.id, cur.id)))
    return { ...cur, isPrimary, updatedAt: now }
  })
  return walletView(row)
}

/** Re-checks the password, then issues a single-use export token for one custodial wallet (valid 5 minutes). */
export async function requestExportToken(ctx: Ctx, input: { walletId: string; password: string }) {
  const w = await ownWallet(ctx, input.walletId)
  if (!(await verifyPassword(ctx.actor.user.passwordHash, input.password))) {
    throw new ValidationError([{ path: '/password', message: 'Password is incorrect' }])
  }
  if (!w.keySealed) throw new BadRequestError('This wallet\'s key is not held by the service, so it cannot be exported')
  const token = randomToken(32)
  const now = ctx.deps.clock.now()
  const expiresAt = now + EXPORT_TOKEN_TTL_MS
  await ctx.deps.database.write(async (tx) => {
    // Spent and expired tokens of this user serve no purpose: drop them as new ones come.
    await tx.delete(walletExportTokens).where(and(eq(walletExportTokens.tenantId, w.tenantId), eq(walletExportTokens.userId, w.userId), or(lt(walletExportTokens.expiresAt, now), isNotNull(walletExportTokens.usedAt))))
    await tx.insert(walletExportTokens).values({
      id: newId(), tenantId: w.tenantId, userId: w.userId, walletId: w.id, tokenHash: sha256Hex(token), expiresAt, usedAt: null, createdAt: now,
    })
  })
  return { exportToken: token, walletId: w.id, expiresAt: iso(expiresAt), expiresIn: EXPORT_TOKEN_TTL_MS / 1000 }
}

/** Spends the export token and answers the private key encrypted to the client's ephemeral X25519 public key. */
export async function exportKey(ctx: Ctx, input: { walletId: string; exportToken: string; clientPublicKey: string }) {
  const w = await ownWallet(ctx, input.walletId)
  const recipient = parseX25519PublicKey(input.clientPublicKey)
  if (!recipient) throw new BadRequestError('clientPublicKey must be a 32-byte X25519 public key (base64 or hex)')
  const now = ctx.deps.clock.now()
  const hash = sha256Hex(input.exportToken)
  const row = await ctx.deps.database.write(async (tx) => {
    const tok = await tx.select().from(walletExportTokens).where(and(eq(walletExportTokens.tenantId, w.tenantId), eq(walletExportTokens.tokenHash, hash))).get()
    // One answer for unknown, spent, expired or someone else's token: nothing to probe.
    if (!tok || tok.usedAt !== null || tok.expiresAt <= now || tok.userId !== w.userId || tok.walletId !== w.id) {
      throw new ForbiddenError('Export token is invalid, expired or already used')
    }
    await tx.update(walletExportTokens).set({ usedAt: now }).where(eq(walletExportTokens.id, tok.id))
    const cur = await repo.findUserWallet(tx, w.tenantId, w.userId, w.id)
    if (!cur?.keySealed || !cur.dataKeyWrapped) throw new BadRequestError('This wallet\'s key is not held by the service, so it cannot be exported')
    await recordActivity(tx, { tenantId: w.tenantId, actor: ctx.actor, action: 'wallet.key_exported', targetType: 'wallet', targetId: w.id, requestId: ctx.requestId, at: now })
    return cur
  })
  const net = lookupChain(row.chain)!
  const secret = openKey(ctx.deps.sealer, { tenantId: row.tenantId, walletId: row.id, address: row.address }, { dataKeyWrapped: row.dataKeyWrapped!, keySealed: row.keySealed! })
  try {
    const envelope = encryptToX25519(recipient, exportFormat(net.chain.family, secret), row.id)
    ctx.deps.logger.info('wallet key exported', { requestId: ctx.requestId, walletId: row.id, tenantId: row.tenantId })
    return { walletId: row.id, chain: row.chain, address: row.address, keyFormat: keyFormatOf(net.chain.family), envelope }
  } finally {
    secret.fill(0)
  }
}

/** The wallets of a user, for the user itself or an operator of its tenant. */
export async function userWallets(ctx: Ctx, userId: string, requestedTenant?: string) {
  const { actor } = ctx
  let tenantId: string | null
  if (actor.role === 'admin') tenantId = requestedTenant ?? null
  else {
    if (requestedTenant && requestedTenant !== actor.tenantId) throw new NotFoundError('User not found')
    tenantId = actor.tenantId
    if (actor.role === 'user' && userId !== actor.userId) throw new NotFoundError('User not found')
  }
  if (!tenantId || !isUuid(userId)) throw new NotFoundError('User not found')
  const user = await usersRepo.findById(ctx.deps.database.db, tenantId, userId)
  if (!user || user.status !== 'active') throw new NotFoundError('User not found')
  const { rows } = await repo.listUserWallets(ctx.deps.database.db, tenantId, userId)
  return { data: rows.map(walletView) }
}

/**
 * Registration with `wallet: { option: "create", chain }`. Validation runs before the
 * user is created; creation runs in the registration's transaction. Tenants in `mpc`
 * or `non_custodial` mode never get a wallet at registration (the option is ignored).
 */
/** Registration hook: the wallet asked for at registration names a chain this tenant can use. */
export async function validateRegistrationWallet(deps: Deps, tenant: SignedTenant, wallet: { chain?: string }) {
  const settings = await registrationSettings(deps, tenant)
  if (settings.walletMode !== 'custodial') return
  try {
    resolveChain(settings, wallet.chain ?? '')
  } catch {
    throw new ValidationError([{ path: '/wallet/chain', message: `Unsupported chain: ${wallet.chain}` }])
  }
}

/** Registration hook: the new user's custodial wallet, created in the registration's transaction. */
export async function createRegistrationWallet(deps: Deps, tx: Tx, tenant: SignedTenant, user: { id: string }, chain: string) {
  const settings = await registrationSettings(deps, tenant)
  if (settings.walletMode !== 'custodial') return undefined
  const net = resolveChain(settings, chain)
  const key = generateKey(net.chain.family)
  try {
    const row = await insertWallet(deps, tx, {
      tenantId: tenant.id, userId: user.id, net, address: key.address, label: null, walletType: 'managed', scheme: 'aes_single', isPrimary: true, secret: key.secret,
    })
    return walletView(row)
  } finally {
    key.secret.fill(0)
  }
}

// The signed tenant was read for this request; createWallet runs inside the write transaction, so no further read.
const registrationSettings = (deps: Deps, tenant: SignedTenant) => settingsOf({ deps }, { settings: tenant.settings, name: tenant.name })
