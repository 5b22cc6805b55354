/**
 * A passkey's approval before an operation that can empty a wallet (docs/passkeys.md, "Step-up").
 * The client asks for options naming the request it is about to send (operation, method, path,
 * SHA-256 of the body bytes), has the user's passkey sign them, and gets a single-use approval
 * valid two minutes. The guarded route spends it only when the request is exactly the approved
 * one: an access token alone, stolen or not, cannot export a key. Only the approval's SHA-256
 * is stored.
 */
import { webauthn } from './webauthn'
import type { Ctx, StepUpOperation, StepUpRequest } from '../../context'
import { iso } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { ERROR_CODES } from '../../lib/error-codes'
import { ForbiddenError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { tenantOf } from '../tenants'
import { checkAssertion } from './assertion'
import { CHALLENGE_TTL_MS, issueChallenge, refused } from './ceremony'
import { hostedExpected } from './expected'
import type { ApprovalOptionsBody, ApprovalVerifyBody } from './model'
import * as repo from './repo'

export const APPROVAL_TTL_MS = 2 * 60 * 1000

type Binding = ApprovalOptionsBody

/** Options for an approval of one request, answerable by any of the caller's passkeys. */
export async function approvalOptions(ctx: Ctx, input: ApprovalOptionsBody) {
  const { id: tenantId, settings } = tenantOf(ctx)
  const passkeys = await repo.listOfUser(ctx.deps.database.db, tenantId, ctx.actor.userId)
  if (passkeys.length === 0) throw refused('PASSKEY_CREDENTIAL_UNKNOWN', 'other', 'You have no passkey to approve with: register one first')
  // the tenant's own relying party when it has one and the user a passkey for it; else the hosted page's
  const own = settings.passkeys.rpId
  const expected = own && settings.passkeys.origins.length > 0 && passkeys.some((p) => p.rpId === own)
    ? { rpId: own, origins: settings.passkeys.origins }
    : hostedExpected(ctx.deps)
  const binding: Binding = { operation: input.operation, method: input.method, path: input.path, bodyHash: input.bodyHash }
  const { bytes } = await issueChallenge(ctx.deps, tenantId, 'approve', expected, ctx.actor.userId, binding)
  return (await webauthn()).generateAuthenticationOptions({
    rpID: expected.rpId, challenge: bytes, userVerification: 'required', timeout: CHALLENGE_TTL_MS,
    allowCredentials: passkeys.filter((p) => p.rpId === expected.rpId).map((p) => ({ id: p.credentialId, transports: JSON.parse(p.transports) })),
  })
}

/** Checks the assertion and answers the approval for the request its options named. */
export async function approve(ctx: Ctx, input: typeof ApprovalVerifyBody.static) {
  const { id: tenantId } = tenantOf(ctx)
  const { row } = await checkAssertion(ctx.deps, tenantId, input.response, 'approve', 'other')
  if (row.userId !== ctx.actor.userId || row.binding === null) throw refused('PASSKEY_CHALLENGE_UNKNOWN')
  const binding = JSON.parse(row.binding) as Binding
  const approval = randomToken(32)
  const now = ctx.deps.clock.now()
  const expiresAt = now + APPROVAL_TTL_MS
  await ctx.deps.database.write((tx) => repo.insertGrant(tx, tenantId, {
    id: newId(), userId: ctx.actor.userId, kind: 'approval', tokenHash: sha256Hex(approval), data: JSON.stringify(binding), createdAt: now, expiresAt, usedAt: null,
  }))
  return { approval, operation: binding.operation, expiresAt: iso(expiresAt), expiresIn: APPROVAL_TTL_MS / 1000 }
}

/** Whether `amount` is at or under the tenant's threshold, so the operation needs no approval. */
function underThreshold(operation: StepUpOperation, amountAbove: string | null, amount: string | undefined) {
  if ((operation !== 'send' && operation !== 'payout') || amountAbove === null || amount === undefined || !/^[0-9]{1,78}$/.test(amount)) return false
  return BigInt(amount) <= BigInt(amountAbove)
}

const forbid = (code: 'PASSKEY_APPROVAL_REQUIRED' | 'PASSKEY_APPROVAL_INVALID' | 'PASSKEY_REQUIRED') => new ForbiddenError(ERROR_CODES[code].message, { code })

/**
 * The guard: passes when the tenant does not list any of `operations` (a send or payout at or under
 * the tenant's amount counts as not listed), or the caller has no passkey (and
 * the tenant does not require one); otherwise spends the request's approval, refusing with 403
 * when it is missing, or not for exactly this request, user and tenant.
 */
export async function requireApproval(ctx: Ctx, operations: StepUpOperation[], req: StepUpRequest) {
  if (!ctx.actor.tenantId || !ctx.tenant) return
  const { id: tenantId, settings } = tenantOf(ctx)
  const rule = settings.passkeys.stepUp
  // the operations this request is that the tenant guards: an approval for any of them (bound to this very body) will do
  const guarded = operations.filter((op) => rule.operations.includes(op) && !underThreshold(op, rule.amountAbove, req.amount))
  if (guarded.length === 0) return
  const db = ctx.deps.database.db
  if ((await repo.countOfUser(db, tenantId, ctx.actor.userId)) === 0) {
    if (rule.requirePasskey) throw forbid('PASSKEY_REQUIRED')
    return
  }
  if (!req.approval) throw forbid('PASSKEY_APPROVAL_REQUIRED')
  const grant = await repo.findGrant(db, tenantId, sha256Hex(req.approval.slice(0, 256)))
  const now = ctx.deps.clock.now()
  if (!grant || grant.kind !== 'approval' || grant.tenantId !== tenantId || grant.userId !== ctx.actor.userId) throw forbid('PASSKEY_APPROVAL_INVALID')
  const b = JSON.parse(grant.data) as Binding
  const bodyHash = sha256Hex(req.body ?? new Uint8Array())
  if (!guarded.includes(b.operation) || b.method !== req.method || b.path !== req.path || b.bodyHash !== bodyHash) throw forbid('PASSKEY_APPROVAL_INVALID')
  if (!(await ctx.deps.database.write((tx) => repo.spendGrant(tx, tenantId, grant.id, now)))) throw forbid('PASSKEY_APPROVAL_INVALID')
}
