/**
 * The step-up guard as a route option: `passkeyApproval` names the operation a route is, or a
 * function of the body naming the operations a request is (a user update may change the email,
 * the password, both or neither) and, for sends and payouts, its amount. Routes put it after their
 * `auth` (or `apAuth`) option, whose context it reads. It documents the `Passkey-Approval` header
 * and the 403 in the route's OpenAPI entry.
 */
import { Elysia } from 'elysia'
import type { Ctx } from '../../context'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { stateOf } from '../../http/request-state'
import type { StepUpOperation } from '../tenants'
import { APPROVAL_HEADER, requireApproval } from './step-up'

export interface GuardedBy {
  operations: StepUpOperation[]
  amount?: string
}
export type PasskeyApprovalOption = StepUpOperation | ((body: any) => GuardedBy)

const HEADER_NOTE = prose`
  A fresh passkey approval for this exact request (docs/passkeys.md, "Step-up"), needed when the
  tenant lists the operation in \`passkeys.stepUp.operations\` and the caller has a passkey (or the
  tenant sets \`requirePasskey\`). Without it: 403 \`PASSKEY_APPROVAL_REQUIRED\`; one made for
  another request, user, or already used: 403 \`PASSKEY_APPROVAL_INVALID\`.`

/** The guard's context: the user's (`auth`), or an operator's or a wallet owner's (agent payments' `apAuth`). */
function ctxOf(context: Record<string, unknown>): Ctx | null {
  if (context.ctx) return context.ctx as Ctx
  const caller = context.caller as { kind: string; ctx?: Ctx } | undefined
  return caller?.ctx ?? null
}

export function passkeyGuard(deps: Deps) {
  return new Elysia({ name: 'slipway-passkey-guard', seed: deps.config.publicBaseUrl })
    .macro({
      passkeyApproval: (option: PasskeyApprovalOption) => ({
        detail: {
          'x-passkey-approval': typeof option === 'string' ? option : 'by body',
          parameters: [{ in: 'header', name: 'Passkey-Approval', required: false, schema: { type: 'string', maxLength: 256 }, description: HEADER_NOTE }],
        } as Record<string, unknown>,
        async beforeHandle(context) {
          const c = context as unknown as Record<string, unknown> & { request: Request; body: unknown }
          const ctx = ctxOf(c)
          // agent and merchant keys act for the tenant, not for a user who could hold a passkey
          if (!ctx) return
          const by: GuardedBy = typeof option === 'string' ? { operations: [option] } : option(c.body)
          if (by.operations.length === 0) return
          const request = c.request
          await requireApproval(ctx, by.operations, {
            method: request.method, path: new URL(request.url).pathname, body: stateOf(request).raw, approval: request.headers.get(APPROVAL_HEADER), amount: by.amount,
          })
        },
      }),
    })
}
