/**
 * The tenant's passkey settings (docs/passkeys.md): the relying party its own front end uses,
 * the origins a ceremony may come from, where the hosted page may send users back, and which
 * operations need a fresh passkey approval.
 */
import { t } from 'elysia'
import type { StepUpOperation } from '../../context'
import { prose } from '../../http/prose'

/** The operations a tenant may put behind a passkey approval (`passkeys.stepUp.operations`). */
export const STEP_UP_OPERATIONS = ['key_export', 'sign_in_method', 'email_change', 'send', 'payout', 'agent_execution_approval', 'agent_api_key'] as const satisfies readonly StepUpOperation[]
export const StepUpOperationSchema = t.Union([
  t.Literal('key_export'), t.Literal('sign_in_method'), t.Literal('email_change'), t.Literal('send'), t.Literal('payout'),
  t.Literal('agent_execution_approval'), t.Literal('agent_api_key'),
], {
  description: prose`
    \`key_export\` (POST /v1/wallets/export-key), \`sign_in_method\` (adding or removing a passkey,
    changing the password), \`email_change\` (PUT /v1/users/{id} with \`email\`), \`send\`
    (POST /v1/transactions above \`amountAbove\`), \`payout\` (the bank ramp's payouts above
    \`amountAbove\`), \`agent_execution_approval\`, \`agent_api_key\``,
})

const Origin = t.String({
  maxLength: 255, pattern: '^https?://[^/?#]+$', description: 'scheme, host and port only: `https://app.example.com`; on `rpId` or a subdomain of it (422 otherwise)',
})
const RpId = t.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$', description: 'a domain: the origins\' host or a parent of it' })
const Amount = () => t.String({ pattern: '^[0-9]{1,78}$', description: 'smallest unit, integer string' })

export const PasskeySettingsPatch = t.Partial(t.Object({
  rpId: t.Union([RpId, t.Null()], { description: '`null`: no passkeys on the tenant\'s own front end (the hosted page still works)' }),
  rpName: t.String({ minLength: 1, maxLength: 100 }),
  origins: t.Array(Origin, { maxItems: 20 }),
  hostedReturnUrls: t.Array(t.String({ maxLength: 2048, pattern: '^https?://' }), {
    maxItems: 20,
    description: 'where the hosted passkey page may send users back: a `returnUrl` must start with one of these',
  }),
  stepUp: t.Partial(t.Object({
    operations: t.Array(StepUpOperationSchema, { maxItems: STEP_UP_OPERATIONS.length, uniqueItems: true }),
    amountAbove: t.Union([Amount(), t.Null()], { description: '`send` and `payout` need an approval only above this amount; `null`: always' }),
    requirePasskey: t.Boolean({ description: 'true: users without a passkey are refused the listed operations too (they must register one first)' }),
  })),
}))

export const PasskeySettingsView = t.Object({
  rpId: t.Union([t.String(), t.Null()]),
  rpName: t.String(),
  origins: t.Array(t.String()),
  hostedReturnUrls: t.Array(t.String()),
  stepUp: t.Object({
    operations: t.Array(StepUpOperationSchema),
    amountAbove: t.Union([Amount(), t.Null()], { description: '`send` and `payout` need an approval only above this amount (smallest unit, integer string); `null`: always' }),
    requirePasskey: t.Boolean(),
  }),
})
export type PasskeySettings = typeof PasskeySettingsView.static

export const passkeyDefaults = (tenantName: string): PasskeySettings => ({
  rpId: null,
  rpName: tenantName,
  origins: [],
  hostedReturnUrls: [],
  stepUp: { operations: [], amountAbove: null, requirePasskey: false },
})

/**
 * A browser accepts a relying party id only when it is the page's host or a parent domain of it:
 * an origin outside `rpId` could never make a passkey for it, so such settings are refused (422).
 */
export function passkeySettingsProblems(p: PasskeySettings): Array<{ path: string; message: string }> {
  if (p.rpId === null) return []
  const rpId = p.rpId
  return p.origins.flatMap((origin, i) => {
    const host = new URL(origin).hostname
    return host === rpId || host.endsWith(`.${rpId}`) ? [] : [{ path: `/passkeys/origins/${i}`, message: `${origin} is not on ${rpId} or a subdomain of it` }]
  })
}
