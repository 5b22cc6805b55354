/**
 * Non-custodial wallets and the migration of a custodial wallet to client custody.
 *
 * Registration: the client asks for a challenge naming chain and address, signs its
 * message with the wallet's key (EIP-191 personal_sign on EVM, ed25519 over the UTF-8
 * message on Solana), and posts the signature. Challenges are single use and expire
 * after 5 minutes.
 *
 * Migration: the user registers a device (its X25519 public key); the migration
 * challenge hands the custodial key over once, encrypted to that device, and marks the
 * wallet `client_side_pending`; confirm-client-custody, signed by the wallet's key over
 * the challenge, proves the device holds it, and only then is the service's copy erased
 * (`client_side`). cancel-migration returns a pending wallet to `aes_single`.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { base58, base64 } from '@scure/base'
import { PublicKey } from '@solana/web3.js'
import { verifyMessage } from 'viem'
import type { Tx } from '../../db/client'
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../lib/errors'
import { verifyPassword } from '../../lib/passwords'
import { iso } from '../../lib/clock'
import { randomToken } from '../../lib/crypto'
import { isUuid, newId } from '../../lib/ids'
import type { Ctx } from '../../context'
import { recordActivity } from '../activity'
import type { Family } from '../../adapters/chain/port'
import { tenantOf } from '../tenants'
import { lookupChain } from '../tokens'
import { keyFormatOf, addressKeyOf, encryptToX25519, exportFormat, normalizeAddress, openKey, parseX25519PublicKey } from './keys'
import type { CancelMigration, ClientChallengeQuery, ConfirmClientCustody, MigrationChallengeQuery, RegisterClientWallet, RegisterDevice } from './model'
import * as repo from './repo'
import { addWallet, ownWallet, resolveChain } from './service'
import { walletView } from './view'

export const CHALLENGE_TTL_MS = 5 * 60 * 1000

function challengeMessage(purpose: string, chain: string, address: string, nonce: string, issuedAt: number, expiresAt: number) {
  return [
    `Slipway ${purpose}`,
    `Chain: ${chain}`,
    `Address: ${address}`,
    `Nonce: ${nonce}`,
    `Issued At: ${iso(issuedAt)}`,
    `Expiration Time: ${iso(expiresAt)}`,
  ].join('\n')
}

/** True when `signature` is the address owner's signature over `message`; false for any malformed input. */
export async function verifyOwnership(family: Family, address: string, message: string, signature: string): Promise<boolean> {
  try {
    if (family === 'evm') {
      if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return false
      return await verifyMessage({ address: address as `0x${string}`, message, signature: signature as `0x${string}` })
    }
    // base64 of 64 bytes always ends in `==`, which base58 never contains.
    const sig = /^[A-Za-z0-9+/]{86}==$/.test(signature) ? base64.decode(signature) : base58.decode(signature)
    if (sig.length !== 64) return false
    return ed25519.verify(sig, new TextEncoder().encode(message), new PublicKey(address).toBytes())
  } catch {
    return false
  }
}

export async function clientChallenge(ctx: Ctx, input: ClientChallengeQuery) {
  const tenant = tenantOf(ctx)
  const net = resolveChain(tenant.settings, input.chain, input.isTestnet)
  if (tenant.settings.walletMode === 'mpc') throw new BadRequestError('This tenant uses MPC wallets: create wallets with the DKG start flow (POST /v1/mpc/wallets/dkg/start)')
  const address = normalizeAddress(net.chain.family, input.address)
  if (!address) throw new BadRequestError(`address is not a valid ${net.chain.id} address`)
  const now = ctx.deps.clock.now()
  const expiresAt = now + CHALLENGE_TTL_MS
  const id = newId()
  const message = challengeMessage('wallet ownership', net.network.id, address, randomToken(16), now, expiresAt)
  await ctx.deps.database.write(async (tx) => {
    // The user's spent and expired challenges are of no further use: drop them as new ones come.
    await repo.dropStaleChallenges(tx, tenant.id, ctx.actor.userId, 'client_register', now)
    await repo.insertChallenge(tx, {
      id, tenantId: tenant.id, userId: ctx.actor.userId, purpose: 'client_register', chain: net.chain.id, isTestnet: net.network.isTestnet,
      addressKey: addressKeyOf(net.chain.family, address), walletId: null, message, expiresAt, usedAt: null, createdAt: now,
    })
  })
  return { challengeId: id, message, chain: net.chain.id, isTestnet: net.network.isTestnet, address, expiresAt: iso(expiresAt) }
}

/** Marks a challenge used, or throws 400 when it is unknown, someone else's, spent or expired. */
async function spendChallenge(ctx: Ctx, tx: Tx, tenantId: string, id: string, purpose: repo.ChallengePurpose) {
  const now = ctx.deps.clock.now()
  const c = isUuid(id) ? await repo.findChallenge(tx, tenantId, id) : undefined
  if (!c || c.userId !== ctx.actor.userId || c.purpose !== purpose) throw new BadRequestError('Challenge not found')
  if (c.usedAt !== null) throw new BadRequestError('Challenge already used; request a new one')
  if (c.expiresAt <= now) throw new BadRequestError('Challenge expired; request a new one')
  await repo.markChallengeUsed(tx, tenantId, c.id, now)
  return c
}

async function readChallenge(ctx: Ctx, tenantId: string, id: string) {
  if (!isUuid(id)) return undefined
  return repo.findChallenge(ctx.deps.database.db, tenantId, id)
}

export async function registerClientWallet(ctx: Ctx, input: RegisterClientWallet) {
  const tenant = tenantOf(ctx)
  if (tenant.settings.walletMode === 'mpc') throw new BadRequestError('This tenant uses MPC wallets: create wallets with the DKG start flow (POST /v1/mpc/wallets/dkg/start)')
  const c = await readChallenge(ctx, tenant.id, input.challengeId)
  if (!c || c.userId !== ctx.actor.userId || c.purpose !== 'client_register') throw new BadRequestError('Challenge not found')
  const net = resolveChain(tenant.settings, c.chain, c.isTestnet)
  const address = normalizeAddress(net.chain.family, c.addressKey)!
  // The signature is checked before the challenge is spent, but the spend (in the
  // transaction) is what makes it single use: a replay finds it used.
  if (!(await verifyOwnership(net.chain.family, address, c.message, input.signature))) {
    throw new BadRequestError('Signature does not match the challenge and address')
  }
  const row = await ctx.deps.database.write(async (tx) => {
    await spendChallenge(ctx, tx, tenant.id, c.id, 'client_register')
    return addWallet(ctx.deps, tx, {
      tenantId: tenant.id, userId: ctx.actor.userId, net, address, label: input.name ?? null, walletType: 'client', scheme: 'client_side', isPrimary: input.isPrimary ?? false,
    })
  })
  return walletView(row)
}

/**
 * Registers a device that may receive keys in a migration. The password is re-checked
 * here because a registered device is what a key is later handed to: a stolen access
 * token alone must not be enough to pull a custodial key out.
 */
export async function registerDevice(ctx: Ctx, input: RegisterDevice) {
  const tenant = tenantOf(ctx)
  const pub = parseX25519PublicKey(input.publicKey)
  if (!pub) throw new BadRequestError('publicKey must be a 32-byte X25519 public key (base64 or hex)')
  if (!(await verifyPassword(ctx.actor.user.passwordHash, input.password))) {
    throw new ValidationError([{ path: '/password', message: 'Password is incorrect' }])
  }
  const now = ctx.deps.clock.now()
  const row = { id: newId(), tenantId: tenant.id, userId: ctx.actor.userId, name: input.name ?? null, publicKey: Buffer.from(pub).toString('base64'), createdAt: now }
  await ctx.deps.database.write((tx) => repo.insertDevice(tx, row))
  return { deviceId: row.id, name: row.name, publicKey: row.publicKey, createdAt: iso(now) }
}

/**
 * Starts a migration: hands the key over once, encrypted to the device. While the
 * wallet is `client_side_pending` no second copy is handed out (cancel first).
 */
export async function migrationChallenge(ctx: Ctx, input: MigrationChallengeQuery) {
  const w = await ownWallet(ctx, input.walletId)
  const device = isUuid(input.deviceId)
    ? await repo.findUserDevice(ctx.deps.database.db, w.tenantId, w.userId, input.deviceId)
    : undefined
  if (!device) throw new NotFoundError('Device not found')
  const now = ctx.deps.clock.now()
  const expiresAt = now + CHALLENGE_TTL_MS
  const challengeId = newId()
  const message = challengeMessage('custody migration', w.isTestnet ? lookupChain(w.chain)!.chain.testnet.id : w.chain, w.address, randomToken(16), now, expiresAt)
  const row = await ctx.deps.database.write(async (tx) => {
    const cur = await repo.findUserWallet(tx, w.tenantId, w.userId, w.id)
    if (!cur) throw new NotFoundError('Wallet not found')
    if (cur.keyManagementScheme === 'client_side_pending') throw new ConflictError('A migration of this wallet is already in progress; cancel it to start again')
    if (cur.keyManagementScheme !== 'aes_single' || !cur.keySealed) throw new BadRequestError('Only custodial wallets whose key the service holds can be migrated')
    await repo.updateWallet(tx, cur.tenantId, cur.id, { keyManagementScheme: 'client_side_pending', migrationDeviceId: device.id, updatedAt: now })
    // Earlier migration challenges of this wallet stop working.
    await repo.expireWalletChallenges(tx, cur.tenantId, cur.id, now)
    await repo.insertChallenge(tx, {
      id: challengeId, tenantId: cur.tenantId, userId: cur.userId, purpose: 'migration', chain: cur.chain, isTestnet: cur.isTestnet,
      addressKey: cur.addressKey, walletId: cur.id, message, expiresAt, usedAt: null, createdAt: now,
    })
    await recordActivity(tx, {
      tenantId: cur.tenantId,
      actor: ctx.actor,
      action: 'wallet.migration_started',
      targetType: 'wallet',
      targetId: cur.id,
      details: { deviceId: device.id },
      requestId: ctx.requestId,
      at: now,
    })
    return cur
  })
  const family = lookupChain(row.chain)!.chain.family
  const secret = openKey(ctx.deps.sealer, { tenantId: row.tenantId, walletId: row.id, address: row.address }, { dataKeyWrapped: row.dataKeyWrapped!, keySealed: row.keySealed! })
  try {
    const envelope = encryptToX25519(Buffer.from(device.publicKey, 'base64'), exportFormat(family, secret), row.id)
    return { walletId: row.id, deviceId: device.id, challengeId, message, expiresAt: iso(expiresAt), keyFormat: keyFormatOf(family), envelope }
  } finally {
    secret.fill(0)
  }
}

export async function confirmClientCustody(ctx: Ctx, input: ConfirmClientCustody) {
  const w = await ownWallet(ctx, input.walletId)
  if (w.keyManagementScheme !== 'client_side_pending') throw new BadRequestError('No migration of this wallet is in progress')
  const c = await readChallenge(ctx, w.tenantId, input.challengeId)
  if (!c || c.walletId !== w.id || c.purpose !== 'migration') throw new BadRequestError('Challenge not found')
  const family = lookupChain(w.chain)!.chain.family
  if (!(await verifyOwnership(family, w.address, c.message, input.signature))) throw new BadRequestError('Signature does not match the challenge and address')
  const now = ctx.deps.clock.now()
  const row = await ctx.deps.database.write(async (tx) => {
    await spendChallenge(ctx, tx, w.tenantId, c.id, 'migration')
    const cur = await repo.findUserWallet(tx, w.tenantId, w.userId, w.id)
    if (!cur || cur.keyManagementScheme !== 'client_side_pending') throw new BadRequestError('No migration of this wallet is in progress')
    // The device proved it holds the key: the service's copy is erased for good.
    const set = { keyManagementScheme: 'client_side' as const, walletType: cur.walletType, dataKeyWrapped: null, keySealed: null, keyVersion: null, migrationDeviceId: null, updatedAt: now }
    await repo.updateWallet(tx, cur.tenantId, cur.id, set)
    await recordActivity(tx, { tenantId: cur.tenantId, actor: ctx.actor, action: 'wallet.migration_confirmed', targetType: 'wallet', targetId: cur.id, requestId: ctx.requestId, at: now })
    return { ...cur, ...set }
  })
  return walletView(row)
}

export async function cancelMigration(ctx: Ctx, input: CancelMigration) {
  const w = await ownWallet(ctx, input.walletId)
  const now = ctx.deps.clock.now()
  const row = await ctx.deps.database.write(async (tx) => {
    const cur = await repo.findUserWallet(tx, w.tenantId, w.userId, w.id)
    if (!cur || cur.keyManagementScheme !== 'client_side_pending') throw new BadRequestError('No migration of this wallet is in progress')
    const set = { keyManagementScheme: 'aes_single' as const, migrationDeviceId: null, updatedAt: now }
    await repo.updateWallet(tx, cur.tenantId, cur.id, set)
    await repo.expireWalletChallenges(tx, cur.tenantId, cur.id, now)
    await recordActivity(tx, { tenantId: cur.tenantId, actor: ctx.actor, action: 'wallet.migration_cancelled', targetType: 'wallet', targetId: cur.id, requestId: ctx.requestId, at: now })
    return { ...cur, ...set }
  })
  return walletView(row)
}
