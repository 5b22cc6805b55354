/** Register, login, refresh and the platform admin's login. */
import type { Deps } from '../../deps'
import { ConflictError, UnauthorizedError, ValidationError } from '../../lib/errors'
import { withTransaction, type RegistrationCollaborators, type RegistrationContext, type SignatureRecord, type SignedTenant } from '../../context'
import type { Login, Register } from './model'
import { newId } from '../../lib/ids'
import { hashPassword, hashPasswordOnce, passwordProblems, verifyPassword } from '../../lib/passwords'
import * as usersRepo from '../users'
import { recordActivity } from '../activity'
import { userView } from '../users'
import { sessionStatement, startSession } from './sessions'

/**
 * A new user of the signed tenant, with a session (and a custodial wallet when asked, or on an `mpc` tenant its DKG session). Its collaborators come from src/services.ts.
 * `signature`: the request's signature, recorded with the user's write (the route records it after a refusal).
 */
export async function register(deps: Deps, tenant: SignedTenant, input: Register, collaborators: RegistrationCollaborators, requestId = '', signature?: SignatureRecord) {
  const problems = passwordProblems(input.password).map((message) => ({ path: '/password', message: `Password ${message}` }))
  if (problems.length) throw new ValidationError(problems)
  if (input.wallet) {
    if (!input.wallet.chain) throw new ValidationError([{ path: '/wallet/chain', message: 'chain is required when option is create' }])
    await collaborators.wallets.validate(tenant, input.wallet)
    await collaborators.mpc.validate(tenant, input.wallet.chain)
  }
  // The hash starts here, on argon2's own threads, and the checks and the answer's making run
  // while it does (docs/benchmarks.md, "Signed registration"): the request's work then runs
  // back to back, not cold after the hash's wait. Nothing is written before both are done; a
  // refusal below leaves the hash unread (its CPU spent: a refused registration costs one).
  const hashing = hashPassword(input.password)
  hashing.catch(() => {})
  const breach = await collaborators.checkPassword(tenant, input.password)
  if (breach) throw new ValidationError([{ path: '/password', message: breach }])
  const taken = await usersRepo.namesTaken(deps.database, tenant.id, input.username, input.email)
  if (taken.username) throw new ConflictError('Username already taken')
  if (taken.email) throw new ConflictError('Email already registered')
  try {
    if (!input.wallet) return await registerAlone(deps, tenant, input, hashing, signature)
    // a registration with a wallet writes in a transaction: its signature is recorded before, alone
    await signature?.record()
    const passwordHash = await hashing
    const now = deps.clock.now()
    const ctx: RegistrationContext = { deps, actor: null, tenant, requestId }
    return await withTransaction(ctx, async (tx, inWrite) => {
      // A concurrent registration that won the name or the email is refused by the unique indexes (below).
      const user = await usersRepo.insertUser(tx, { id: newId(), tenantId: tenant.id, username: input.username, email: input.email.trim(), passwordHash, role: 'user', now })
      // the wallet or the DKG session is written in this transaction: the user exists with it or not at all
      const wallet = input.wallet ? await collaborators.wallets.create(inWrite, user, input.wallet.chain!) : undefined
      const mpcDkg = input.wallet && !wallet ? await collaborators.mpc.start(inWrite, user, input.wallet.chain!) : undefined
      const session = await startSession(deps, user, tx)
      return { ...session, user: userView(user), ...(wallet ? { wallet } : {}), ...(mpcDkg ? { mpcDkg } : {}) }
    })
  } catch (err) {
    if (usersRepo.isUsernameConflict(err)) throw new ConflictError('Username already taken')
    if (usersRepo.isEmailConflict(err)) throw new ConflictError('Email already registered')
    throw err
  }
}

/**
 * A user without a wallet: the user and its session's refresh token as one write batch (one
 * request to a server; on a local file no interactive transaction), with the signature's replay
 * row. The unique indexes refuse a name or email taken since the check, as in the transaction,
 * and a signature recorded since its check; nothing is written then.
 */
async function registerAlone(deps: Deps, tenant: SignedTenant, input: Register, hashing: Promise<string>, signature?: SignatureRecord) {
  // the session (its refresh token, its row and the access token) needs no hash: made while it runs
  const now = deps.clock.now()
  const user = { id: newId(), tenantId: tenant.id, username: input.username, email: input.email.trim(), role: 'user' as const, now }
  const session = sessionStatement(deps, user)
  const answer = await session.session()
  const made = usersRepo.insertUserStatement(deps.database.db, { ...user, passwordHash: await hashing })
  await (signature ?? deps.database).writeBatch([made.statement, session.statement])
  return { ...answer, user: userView(made.row) }
}

const badCredentials = () => new UnauthorizedError('Invalid credentials')

export async function login(deps: Deps, tenantId: string | null, input: Login) {
  const user = await usersRepo.findUserByUsername(deps.database.db, tenantId, input.username)
  // Always run one argon2 verification, so timing does not tell whether the user exists.
  const ok = await verifyPassword(user?.status === 'active' ? user.passwordHash : null, input.password)
  if (!user || !ok || user.status !== 'active') throw badCredentials()
  if (tenantId === null && user.role !== 'admin') throw badCredentials()
  const session = await startSession(deps, user)
  return { ...session, user: userView(user) }
}

/**
 * The first platform admin, from BOOTSTRAP_ADMIN_USERNAME/_PASSWORD, when no admin exists yet.
 * A start that finds one hashes nothing; one that does not hashes with the runtime's argon2, so
 * the addon stays unloaded (src/lib/passwords.ts, hashPasswordOnce). The check is made again
 * inside the write, so two processes starting together create one.
 */
export async function ensureBootstrapAdmin(deps: Deps, username: string, password: string): Promise<'created' | 'exists'> {
  if (await usersRepo.anyAdmin(deps.database.db)) return 'exists'
  const passwordHash = await hashPasswordOnce(password)
  const result = await deps.database.write(async (tx) => {
    if (await usersRepo.anyAdmin(tx)) return 'exists' as const
    await usersRepo.insertUser(tx, { id: newId(), tenantId: null, username, email: null, passwordHash, role: 'admin', now: deps.clock.now() })
    return 'created' as const
  })
  // Another process made it first (seen on the primary, inside the write): an edge pulls it
  // before answering, so a sign-in right after the start finds it (it wrote nothing to pull for).
  if (result === 'exists') await deps.database.replica?.syncNow()
  return result
}

/** Whether any platform admin exists (a first start says how to make one when none does). */
export async function hasAdmin(deps: Deps): Promise<boolean> {
  return usersRepo.anyAdmin(deps.database.db)
}

/**
 * A tenant's administrator (`tenantadmin`) created by an operator's command (`slipway tenant
 * create --admin`): it signs in with the tenant-signed login and manages the tenant's
 * webhooks, users and settings. Recorded in the tenant's activity log with no actor.
 */
export async function createTenantAdmin(deps: Deps, tenantId: string, username: string, password: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]{3,100}$/.test(username)) throw ValidationError.withMessage('Username must be 3 to 100 letters, digits, _ or -', '/username')
  const passwordHash = await hashPassword(password)
  const id = newId()
  const now = deps.clock.now()
  try {
    await deps.database.write(async (tx) => {
      await usersRepo.insertUser(tx, { id, tenantId, username, email: null, passwordHash, role: 'tenantadmin', now })
      await recordActivity(tx, { tenantId, actor: null, action: 'user.created', targetType: 'user', targetId: id, details: { role: 'tenantadmin' }, requestId: 'cli', at: now })
    })
  } catch (err) {
    if (usersRepo.isUsernameConflict(err)) throw new ConflictError(`Username ${username} is taken`)
    throw err
  }
  return id
}

/** A platform admin created by an operator's command (any number may exist). */
export async function createAdmin(deps: Deps, username: string, password: string): Promise<string> {
  const passwordHash = await hashPassword(password)
  const id = newId()
  try {
    await deps.database.write((tx) => usersRepo.insertUser(tx, { id, tenantId: null, username, email: null, passwordHash, role: 'admin', now: deps.clock.now() }))
  } catch (err) {
    if (usersRepo.isUsernameConflict(err)) throw new ConflictError(`Username ${username} is taken`)
    throw err
  }
  return id
}
