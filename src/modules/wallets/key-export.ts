/**
 * Key export of a custodial wallet: the password is re-checked for a single-use token
 * (5 minutes, one wallet), and the token is spent for the private key encrypted to the
 * client's ephemeral X25519 key (see keys.ts encryptToX25519). Only the SHA-256 of a
 * token is stored, so a database read does not yield usable tokens.
 */
import type { Ctx } from '../../context'
import { BadRequestError, ForbiddenError, ValidationError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import { verifyPassword } from '../../lib/passwords'
import { recordActivity } from '../activity'
import { lookupChain } from '../tokens'
import { encryptToX25519, exportFormat, keyFormatOf, openKey, parseX25519PublicKey } from './keys'
import type { ExportKey, RequestExportToken } from './model'
import * as repo from './repo'
import { ownWallet } from './service'

export const EXPORT_TOKEN_TTL_MS = 5 * 60 * 1000

/** Re-checks the password, then issues a single-use export token for one custodial wallet (valid 5 minutes). */
export async function requestExportToken(ctx: Ctx, input: RequestExportToken) {
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
    await repo.dropStaleExportTokens(tx, w.tenantId, w.userId, now)
    await repo.insertExportToken(tx, {
      id: newId(), tenantId: w.tenantId, userId: w.userId, walletId: w.id, tokenHash: sha256Hex(token), expiresAt, usedAt: null, createdAt: now,
    })
  })
  return { exportToken: token, walletId: w.id, expiresAt: iso(expiresAt), expiresIn: EXPORT_TOKEN_TTL_MS / 1000 }
}

/** Spends the export token and answers the private key encrypted to the client's ephemeral X25519 public key. */
export async function exportKey(ctx: Ctx, input: ExportKey) {
  const w = await ownWallet(ctx, input.walletId)
  const recipient = parseX25519PublicKey(input.clientPublicKey)
  if (!recipient) throw new BadRequestError('clientPublicKey must be a 32-byte X25519 public key (base64 or hex)')
  const now = ctx.deps.clock.now()
  const hash = sha256Hex(input.exportToken)
  const row = await ctx.deps.database.write(async (tx) => {
    const tok = await repo.findExportToken(tx, w.tenantId, hash)
    // One answer for unknown, spent, expired or someone else's token: nothing to probe.
    if (!tok || tok.usedAt !== null || tok.expiresAt <= now || tok.userId !== w.userId || tok.walletId !== w.id) {
      throw new ForbiddenError('Export token is invalid, expired or already used')
    }
    await repo.markExportTokenUsed(tx, w.tenantId, tok.id, now)
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
