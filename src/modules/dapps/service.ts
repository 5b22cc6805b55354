/**
 * dApp helpers: a single-use nonce for sign-in messages, and a personal message signed by
 * the caller's custodial wallet. Broadcast of client-signed transactions is in broadcast.ts.
 * Decisions: docs/dapps.md.
 */
import { randomBytes } from 'node:crypto'
import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'
import { bytesToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Ctx } from '../../context'
import { AppError, BadRequestError, ConflictError } from '../../lib/errors'
import type { ErrorCode } from '../../lib/error-codes'
import { iso } from '../../lib/clock'
import { sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import { tenantOf } from '../tenants'
import { chainByFamily } from '../tokens'
import { isCustodial, walletSecret } from '../transactions'
import { wallets } from '../wallets'
import { refusalOf } from './message-guard'
import { NONCE_TTL_MINUTES, type SignMessageBody } from './model'
import { dropExpiredNonces, findUserNonce, insertNonce, spendNonce } from './repo'

const NONCE_TTL_MS = NONCE_TTL_MINUTES * 60_000

/**
 * `GET /v1/dapps/nonce`: 128 random bits, bound to the caller, spendable once within 10
 * minutes. Only its SHA-256 is stored. Issuing one also forgets the tenant's expired nonces.
 */
export async function issueNonce(ctx: Ctx) {
  const tenant = tenantOf(ctx)
  const nonce = randomBytes(16).toString('hex')
  const now = ctx.deps.clock.now()
  const expiresAt = now + NONCE_TTL_MS
  await ctx.deps.database.write(async (tx) => {
    await dropExpiredNonces(tx, tenant.id, now)
    await insertNonce(tx, { id: newId(), tenantId: tenant.id, userId: ctx.actor.userId, nonceHash: sha256Hex(nonce), expiresAt, usedAt: null, createdAt: now })
  })
  return { nonce, issuedAt: iso(now), expiresAt: iso(expiresAt) }
}

const dappError = (status: number, code: ErrorCode, message: string) => new AppError(status, status === 409 ? 'ConflictError' : 'BadRequestError', message, { code })

/** The message's bytes and, when they are UTF-8, its text. */
function messageOf(input: SignMessageBody): { bytes: Uint8Array; text: string | null } {
  if ((input.encoding ?? 'utf8') === 'utf8') return { bytes: new TextEncoder().encode(input.message), text: input.message }
  if (!/^0x([0-9a-fA-F]{2})+$/.test(input.message)) throw dappError(400, 'DAPP_MESSAGE_INVALID', 'With `encoding: hex`, `message` is `0x` followed by an even number of hex digits')
  const bytes = Uint8Array.from(Buffer.from(input.message.slice(2), 'hex'))
  let text: string | null
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    text = null
  }
  return { bytes, text }
}

/**
 * Spends the caller's nonce in its own write (one conditional UPDATE: of two requests with
 * one nonce, one signs). Unknown and other users' nonces answer alike, so a guess reveals nothing.
 */
async function spend(ctx: Ctx, tenantId: string, nonce: string) {
  const hash = sha256Hex(nonce)
  const now = ctx.deps.clock.now()
  const spent = await ctx.deps.database.write((tx) => spendNonce(tx, tenantId, ctx.actor.userId, hash, now))
  if (spent) return
  const row = await findUserNonce(ctx.deps.database.db, tenantId, ctx.actor.userId, hash)
  if (!row) throw dappError(400, 'DAPP_NONCE_INVALID', 'Unknown nonce: use one that GET /v1/dapps/nonce issued to you')
  if (row.usedAt !== null) throw new ConflictError('This nonce was already used: get a new one with GET /v1/dapps/nonce', { code: 'DAPP_NONCE_USED' })
  throw dappError(400, 'DAPP_NONCE_EXPIRED', `This nonce has expired (nonces are valid ${NONCE_TTL_MINUTES} minutes): get a new one with GET /v1/dapps/nonce`)
}

/**
 * `POST /v1/dapps/sign-personal-message`. In order: the message is read and checked
 * (message-guard.ts), the wallet must be the caller's (404) and custodial (400), the nonce
 * when given must appear in the message and is then spent; only then is the key opened, for
 * one signature, and zeroed.
 */
export async function signPersonalMessage(ctx: Ctx, input: SignMessageBody) {
  const { bytes, text } = messageOf(input)
  const refused = refusalOf(bytes, text)
  if (refused) throw dappError(400, refused.code, refused.reason)
  const tenant = tenantOf(ctx)
  const w = await wallets.ownWallet(ctx, input.walletId)
  if (!isCustodial(w)) {
    const how = w.keyManagementScheme === 'mpc_tss'
      ? 'an MPC wallet: its parties sign together, on the device and the service party (POST /v1/mpc/wallets/{walletId}/sign/start)'
      : 'a non-custodial wallet: its key is on the user\'s device, which signs the message itself'
    throw new BadRequestError(`Slipway cannot sign with this wallet: it is ${how}`, { code: 'DAPP_WALLET_NOT_CUSTODIAL', details: { keyManagementScheme: w.keyManagementScheme } })
  }
  const family = chainByFamily(w.chain)?.family
  if (!family) throw new BadRequestError(`Unsupported chain: ${w.chain}`)
  if (input.nonce !== undefined) {
    // the signature must commit to the nonce, or spending it proves nothing
    if (text === null || !text.includes(input.nonce)) throw dappError(400, 'DAPP_NONCE_NOT_IN_MESSAGE', 'The message must contain the nonce it spends (SIWE: its `Nonce:` line)')
    await spend(ctx, tenant.id, input.nonce)
  }
  const secret = walletSecret(ctx.deps, w)
  let signature: string
  try {
    signature = family === 'evm'
      ? await privateKeyToAccount(bytesToHex(secret)).signMessage({ message: { raw: bytes } })
      : base58.encode(ed25519.sign(bytes, secret))
  } finally {
    secret.fill(0)
  }
  return {
    walletId: w.id, chain: w.chain, isTestnet: w.isTestnet, address: w.address,
    signingScheme: family === 'evm' ? 'eip191-personal-sign' as const : 'solana-ed25519' as const,
    message: text, messageHex: bytesToHex(bytes), signature, nonce: input.nonce ?? null,
  }
}
