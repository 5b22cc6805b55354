/**
 * The step-up guard as a route option: `passkeyApproval` names the operation a route is, or a
 * function of the body naming the operations a request is (a user update may change the email,
 * the password, both or neither) and, for sends and payouts, its amount. Routes put it after their
 * `auth` (or `apAuth`) option, whose context it reads. It documents the `Passkey-Approval` header
 * in the route's OpenAPI entry. The check itself is the passkeys module's (`StepUpCheck`), handed
 * to each module's routes by src/services.ts: the users module's routes cannot import the passkeys
 * module, which signs users in through the users module.
 */
import { Elysia } from 'elysia'
import type { Ctx, StepUpCheck, StepUpOperation } from '../context'
import type { Deps } from '../deps'
import { prose } from './prose'
import { stateOf } from './request-state'

/** The header a client sends the approval in (docs/passkeys.md). */
export const APPROVAL_HEADER = 'passkey-approval'

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

export function stepUpGuard(deps: Deps, check: StepUpCheck) {
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
          await check(ctx, by.operations, {
            method: request.method, path: new URL(request.url).pathname, body: stateOf(request).raw, approval: request.headers.get(APPROVAL_HEADER), amount: by.amount,
          })
        },
      }),
    })
}
