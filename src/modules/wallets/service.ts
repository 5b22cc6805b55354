/**
 * Wallets: custodial creation and import, listing, primary selection and deletion, and
 * the wallet made at registration. Key export is in key-export.ts, non-custodial
 * registration and custody migration in custody.ts, balances in balances.ts. Every
 * table access goes through repo.ts.
 */
import { uniqueViolation, type Tx } from '../../db/client'
import type { Deps } from '../../deps'
import type { Ctx, SignedTenant } from '../../context'
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../lib/errors'
import { isUuid, newId } from '../../lib/ids'
import { resolveChain } from './chains'
import { tenantOf, settingsOf } from '../tenants'
import type { StoredSettings } from '../tenants'
import { namedChain, type ResolvedNetwork } from '../tokens'
import * as usersRepo from '../users'
import { addressKeyOf, addressOf, deriveFromMnemonic, generateKey, isValidMnemonic, parsePrivateKey, sealKey } from './keys'
import type { CreateWallet, ImportWallet, ListWalletsQuery } from './model'
import * as repo from './repo'
import type { KeyScheme, WalletRow } from './schema'
import { walletView } from './view'

function requireCustodialMode(settings: StoredSettings) {
  if (settings.walletMode === 'mpc') throw new BadRequestError('This tenant uses MPC wallets: create wallets with the DKG start flow (POST /v1/mpc/wallets/dkg/start)')
  if (settings.walletMode === 'non_custodial') {
    throw new BadRequestError('This tenant uses non-custodial wallets: register a client wallet (GET /v1/wallets/client/challenge, then POST /v1/wallets/client)')
  }
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

const addressExists = () => new ConflictError('This address is already registered as a wallet on this chain and network')

/** A new wallet's row, its key sealed. */
function walletRow(deps: Deps, w: NewWallet): WalletRow {
  const id = newId()
  const now = deps.clock.now()
  const sealed = w.secret ? sealKey(deps.sealer, { tenantId: w.tenantId, walletId: id, address: w.address }, w.secret) : null
  return {
    id, tenantId: w.tenantId, userId: w.userId, chain: w.net.chain.id, isTestnet: w.net.network.isTestnet, address: w.address,
    addressKey: addressKeyOf(w.net.chain.family, w.address), label: w.label,
    walletType: w.walletType, keyManagementScheme: w.scheme, isPrimary: w.isPrimary, isWatchOnly: false,
    dataKeyWrapped: sealed?.dataKeyWrapped ?? null, keySealed: sealed?.keySealed ?? null, keyVersion: sealed?.keyVersion ?? null,
    migrationDeviceId: null, createdAt: now, updatedAt: now, deletedAt: null,
  }
}

/** Inserts a wallet inside the caller's transaction, sealing its key; refuses a second primary or a known address. */
export async function addWallet(deps: Deps, tx: Tx, w: NewWallet): Promise<WalletRow> {
  const row = walletRow(deps, w)
  if (w.isPrimary && (await repo.findPrimary(tx, w.tenantId, w.userId, row.chain, row.isTestnet))) throw primaryExists()
  if (await repo.findByAddress(tx, w.tenantId, row.chain, row.isTestnet, row.addressKey)) throw addressExists()
  return repo.insertWallet(tx, row)
}

/**
 * A wallet on its own: one insert, one request to a server (`writeBatch`). The unique indexes
 * make the checks `addWallet` reads for (wallets_primary_uq: one live primary per user, chain
 * and network type; wallets_address_uq: one live wallet per address, chain and network in a
 * tenant), and their refusal answers the same 409s.
 */
async function insertAlone(deps: Deps, w: NewWallet): Promise<WalletRow> {
  const row = walletRow(deps, w)
  try {
    await deps.database.writeBatch([repo.insertWalletStatement(deps.database.db, row)])
  } catch (err) {
    const columns = uniqueViolation(err)
    if (columns.startsWith('wallets.') && columns.includes('user_id')) throw primaryExists()
    if (columns.startsWith('wallets.') && columns.includes('address_key')) throw addressExists()
    throw err
  }
  return row
}

export async function createWallet(ctx: Ctx, input: CreateWallet) {
  const tenant = tenantOf(ctx)
  const net = resolveChain(tenant.settings, input.chain, input.isTestnet)
  requireCustodialMode(tenant.settings)
  const key = generateKey(net.chain.family)
  try {
    const row = await insertAlone(ctx.deps, {
      tenantId: tenant.id, userId: ctx.actor.userId, net, address: key.address, label: input.name ?? null,
      walletType: 'managed', scheme: 'aes_single', isPrimary: input.isPrimary ?? false, secret: key.secret,
    })
    return walletView(row)
  } finally {
    key.secret.fill(0)
  }
}

export async function importWallet(ctx: Ctx, input: ImportWallet) {
  const tenant = tenantOf(ctx)
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
    const row = await insertAlone(ctx.deps, {
      tenantId: tenant.id, userId: ctx.actor.userId, net, address, label: input.name ?? null,
      walletType: 'imported', scheme: 'aes_single', isPrimary: input.isPrimary ?? false, secret: secret!,
    })
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

/** One page of the caller's wallets, oldest first; `limit` and `offset` as applied. */
export async function listWallets(ctx: Ctx, query: ListWalletsQuery) {
  const limit = query.limit ?? 50
  const offset = query.offset ?? 0
  if (!ctx.actor.tenantId) return { rows: [], total: 0, limit, offset }
  // `chain=sepolia` lists the Sepolia wallets, as `chain=ethereum&isTestnet=true` does
  const named = query.chain ? namedChain(query.chain) : undefined
  if (named?.isTestnet && query.isTestnet === false) return { rows: [], total: 0, limit, offset }
  const { rows, total } = await repo.listUserWallets(ctx.deps.database.db, ctx.actor.tenantId, ctx.actor.userId, {
    limit,
    offset,
    chain: named?.family ?? query.chain,
    isTestnet: named?.isTestnet ?? query.isTestnet,
  })
  return { rows: rows.map(walletView), total, limit, offset }
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
    await repo.softDeleteWallet(tx, w.tenantId, w.id, now)
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
    if (isPrimary) await repo.demotePrimary(tx, cur.tenantId, cur.userId, cur.chain, cur.isTestnet, now)
    await repo.updateWallet(tx, cur.tenantId, cur.id, { isPrimary, updatedAt: now })
    return { ...cur, isPrimary, updatedAt: now }
  })
  return walletView(row)
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
  const user = await usersRepo.findUser(ctx.deps.database.db, tenantId, userId)
  if (!user || user.status !== 'active') throw new NotFoundError('User not found')
  const { rows } = await repo.listUserWallets(ctx.deps.database.db, tenantId, userId)
  return { data: rows.map(walletView) }
}

/**
 * Registration with `wallet: { option: "create", chain }` (wired in registration.ts):
 * validation runs before the user is created, creation in the registration's
 * transaction. Tenants in `mpc` or `non_custodial` mode never get a wallet at
 * registration (the option is ignored). This checks that the chain is one the tenant can use.
 */
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
    const row = await addWallet(deps, tx, {
      tenantId: tenant.id, userId: user.id, net, address: key.address, label: null, walletType: 'managed', scheme: 'aes_single', isPrimary: true, secret: key.secret,
    })
    return walletView(row)
  } finally {
    key.secret.fill(0)
  }
}

// The signed tenant was read for this request; createWallet runs inside the write transaction, so no further read.
const registrationSettings = (deps: Deps, tenant: SignedTenant) => settingsOf({ deps }, { settings: tenant.settings, name: tenant.name })

export { resolveChain }
