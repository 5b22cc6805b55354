/** Users administration and the user's own profile. */
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors'
import { isUuid, newId } from '../../lib/ids'
import { lazy } from '../../lib/lazy'
import { hashPassword, verifyPassword } from '../../lib/passwords'
import { withTransaction, type Ctx, type SessionRevoker, type WalletOwnerLookup } from '../../context'
import { recordActivity } from '../activity'
import { operatorTenant, operatorTenantId } from '../tenants'
import type { CreateUser, UpdateMe, UpdateUser } from './model'
import { andThen, type Maybe } from '../../lib/maybe'
import * as repo from './repo'
import { userView, type UserView } from './view'

/**
 * The tenant whose users a request may touch: a user and a tenantadmin are held to
 * their own tenant; a platform admin names one with `tenantId` (or, without it, the
 * platform scope where admins live).
 */
function scopeFor(ctx: Ctx, requested: string | undefined): string | null {
  if (ctx.actor.role === 'admin') return requested ?? null
  if (requested && requested !== ctx.actor.tenantId) throw new NotFoundError('User not found')
  return ctx.actor.tenantId
}

/**
 * A user the actor may see: itself, or any user of a tenant it operates. One's own row is
 * answered without a promise (no read); another's after its read.
 */
function visibleUser(ctx: Ctx, id: string, requestedTenant?: string): Maybe<repo.UserRow> {
  const tenantId = scopeFor(ctx, requestedTenant)
  // One's own row was read with the bearer check moments ago.
  if (id === ctx.actor.userId && tenantId === ctx.actor.tenantId) return ctx.actor.user
  if (ctx.actor.role === 'user' && id !== ctx.actor.userId) throw new NotFoundError('User not found')
  return otherUser(ctx, tenantId, id)
}

async function otherUser(ctx: Ctx, tenantId: string | null, id: string) {
  const row = isUuid(id) ? await repo.findById(ctx.deps.database.db, tenantId, id) : undefined
  if (!row || row.status !== 'active') throw new NotFoundError('User not found')
  return row
}

/** Deep link that pre-fills a send form for paying this user; the QR code encodes it. */
export function paymentLink(ctx: Pick<Ctx, 'deps'>, u: Pick<repo.UserRow, 'id' | 'username'>) {
  const url = new URL('/send', ctx.deps.config.publicBaseUrl)
  url.searchParams.set('to', u.id)
  url.searchParams.set('username', u.username)
  return url.toString()
}

// The QR encoder (and the PNG writer under it) loads with the first QR code drawn: a serving process that never draws one does not hold it.
const qrEncoder = lazy(async () => (await import('qrcode')).default)

export async function qrCodeOf(ctx: Pick<Ctx, 'deps'>, u: Pick<repo.UserRow, 'id' | 'username'>) {
  const deepLink = paymentLink(ctx, u)
  return { deepLink, qrCode: await (await qrEncoder()).toDataURL(deepLink, { errorCorrectionLevel: 'M', margin: 2, width: 256 }) }
}

export async function createUser(ctx: Ctx, input: CreateUser) {
  const tenant = await operatorTenant(ctx, input.tenantId)
  const { deps } = ctx
  const db = deps.database.db
  if (await repo.usernameTaken(db, tenant.id, input.username)) throw new ConflictError('Username already taken')
  if (input.email && (await repo.emailTaken(db, tenant.id, input.email))) throw new ConflictError('Email already registered')
  const passwordHash = await hashPassword(input.password)
  const now = deps.clock.now()
  try {
    const user = await deps.database.write(async (tx) => {
      const u = await repo.insertUser(tx, { id: newId(), tenantId: tenant.id, username: input.username, email: input.email?.trim() ?? null, passwordHash, role: input.role ?? 'user', now })
      await recordActivity(tx, { tenantId: tenant.id, actor: ctx.actor, action: 'user.created', targetType: 'user', targetId: u.id, details: { role: u.role }, requestId: ctx.requestId, at: now })
      return u
    })
    return { ...userView(user), qrCode: (await qrCodeOf(ctx, user)).qrCode }
  } catch (err) {
    if (repo.isUsernameConflict(err)) throw new ConflictError('Username already taken')
    if (repo.isEmailConflict(err)) throw new ConflictError('Email already registered')
    throw err
  }
}

export async function listUsers(ctx: Ctx, input: { tenantId?: string; limit: number; offset: number }) {
  const tenantId = await operatorTenantId(ctx, input.tenantId)
  const { rows, total } = await repo.listActive(ctx.deps.database.db, tenantId, input.limit, input.offset)
  return { rows: rows.map(userView), total }
}

/** The user's view; one's own without a promise (the bearer read's row). */
export function getUser(ctx: Ctx, id: string, tenantId?: string): Maybe<UserView> {
  return andThen(visibleUser(ctx, id, tenantId), userView)
}

export async function updateUser(ctx: Ctx, id: string, input: UpdateUser) {
  if (input.email === undefined && input.password === undefined) throw new BadRequestError('Provide email or password (at least one)')
  const user = await visibleUser(ctx, id, input.tenantId)
  const { deps } = ctx
  const self = user.id === ctx.actor.userId
  if (input.password !== undefined && self) {
    // Changing one's own password needs the current one: a stolen access token alone must not take over the account.
    if (!input.currentPassword || !(await verifyPassword(user.passwordHash, input.currentPassword))) {
      throw new ValidationError([{ path: '/currentPassword', message: 'Current password is incorrect' }])
    }
  }
  if (input.email !== undefined && user.tenantId && (await repo.emailTaken(deps.database.db, user.tenantId, input.email, user.id))) {
    throw new ConflictError('Email already registered')
  }
  const passwordHash = input.password !== undefined ? await hashPassword(input.password) : undefined
  const now = deps.clock.now()
  // The check above answers the usual case; an email taken since is refused by the unique index.
  const updated = await deps.database.write(async (tx) => {
    const set: repo.UserChanges = { updatedAt: now }
    if (input.email !== undefined) Object.assign(set, { email: input.email.trim(), emailKey: repo.emailKey(input.email) })
    // Moving passwordChangedAt makes every earlier refresh token fail.
    if (passwordHash) Object.assign(set, { passwordHash, passwordChangedAt: now })
    await repo.updateUser(tx, user.tenantId, user.id, set)
    if (user.tenantId && !self) {
      await recordActivity(tx, {
        tenantId: user.tenantId,
        actor: ctx.actor,
        action: 'user.updated',
        targetType: 'user',
        targetId: user.id,
        details: { changed: Object.keys(input).filter((k) => k === 'email' || k === 'password') },
        requestId: ctx.requestId,
        at: now,
      })
    }
    return { ...user, ...set }
  }).catch((err: unknown) => {
    if (repo.isEmailConflict(err)) throw new ConflictError('Email already registered')
    throw err
  })
  return userView(updated)
}

/** `revokeSessions`: the auth module's, wired in src/services.ts. */
export async function deleteUser(ctx: Ctx, id: string, tenantId: string | undefined, revokeSessions: SessionRevoker) {
  if (ctx.actor.role === 'user') throw new ForbiddenError()
  const user = await visibleUser(ctx, id, tenantId)
  if (user.id === ctx.actor.userId) throw new BadRequestError('You cannot delete your own account')
  if (user.role === 'admin') throw new ForbiddenError()
  const now = ctx.deps.clock.now()
  await withTransaction(ctx, async (tx, inWrite) => {
    await repo.updateUser(tx, user.tenantId, user.id, { status: 'deleted', deletedAt: now, updatedAt: now, fcmToken: null })
    // the auth module's revocation joins this transaction: the user is deleted and signed out together
    await revokeSessions(inWrite, user, now)
    if (user.tenantId) await recordActivity(tx, { tenantId: user.tenantId, actor: ctx.actor, action: 'user.deleted', targetType: 'user', targetId: user.id, requestId: ctx.requestId, at: now })
  })
}

/** Usernames starting with `q` in the caller's tenant: what a payer needs to find a payee. */
export async function searchUsers(ctx: Ctx, q: string, limit: number) {
  const tenantId = ctx.actor.tenantId
  if (!tenantId) throw new BadRequestError('Search runs inside a tenant; platform admins use advanced-search with tenantId')
  return { data: await repo.findByUsernamePrefix(ctx.deps.database.db, tenantId, q, limit) }
}

/** Operators: by username (prefix), user id, or, through the wallets module's `walletOwners`, wallet address or wallet id. */
export async function advancedSearch(ctx: Ctx, input: { q: string; tenantId?: string; limit: number; offset: number }, walletOwners: WalletOwnerLookup) {
  const tenantId = await operatorTenantId(ctx, input.tenantId)
  const q = input.q.trim()
  const walletOwnerIds = await walletOwners(tenantId, q)
  const { rows, total } = await repo.searchActive(ctx.deps.database.db, tenantId, q, walletOwnerIds, input.limit, input.offset)
  return { rows: rows.map(userView), total }
}

export async function updateMe(ctx: Ctx, input: UpdateMe) {
  if (input.username === undefined && input.displayName === undefined) throw new BadRequestError('Provide username or displayName (at least one)')
  const { deps, actor } = ctx
  const now = deps.clock.now()
  try {
    return await deps.database.write(async (tx) => {
      const me = await repo.findById(tx, actor.tenantId, actor.userId)
      if (!me) throw new NotFoundError('User not found')
      if (input.username !== undefined && repo.usernameKey(input.username) !== me.usernameKey && (await repo.usernameTaken(tx, actor.tenantId, input.username))) {
        throw new ConflictError('Username already taken')
      }
      const set: repo.UserChanges = { updatedAt: now }
      if (input.username !== undefined) Object.assign(set, { username: input.username, usernameKey: repo.usernameKey(input.username) })
      if (input.displayName !== undefined) set.displayName = input.displayName
      await repo.updateUser(tx, actor.tenantId, actor.userId, set)
      return userView({ ...me, ...set })
    })
  } catch (err) {
    if (repo.isUsernameConflict(err)) throw new ConflictError('Username already taken')
    throw err
  }
}

/**
 * The device token for pushes, and optionally the language of the user's notifications (kept
 * when omitted). A token belongs to one user at a time: registering it moves it from whoever
 * held it, in any tenant, in the same write transaction (docs/notifications.md).
 */
export async function setFcmToken(ctx: Ctx, token: string | null, locale?: 'en' | 'it') {
  const { deps, actor } = ctx
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    if (token !== null) await repo.releaseFcmToken(tx, token, actor.userId, now)
    await repo.updateUser(tx, actor.tenantId, actor.userId, { fcmToken: token, ...(locale ? { locale } : {}), updatedAt: now })
  })
  return { ok: true as const }
}

export async function userQrCode(ctx: Ctx, id: string, tenantId?: string) {
  const user = await visibleUser(ctx, id, tenantId)
  return { userId: user.id, ...(await qrCodeOf(ctx, user)) }
}

