/** The wallet owner's consent to an agent paying from their wallet (wallet-consent.ts): read, give, withdraw. Thin. */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { lazyService } from '../../../lib/lazy'
import { apSecurity, scopeOf } from './credentials'
import { AgentParams, CONSENT_NOTE, Uuid, When } from '../model'
import { prose } from '../../../http/prose'

/** loaded with the first request that needs it */
const consent = lazyService(() => import('./wallet-consent'))

export const WalletConsent = t.Object({
  agentId: Uuid,
  agentName: t.String(),
  agentDescription: t.Union([t.String(), t.Null()]),
  agentStatus: t.Union([t.Literal('active'), t.Literal('paused'), t.Literal('archived')]),
  walletId: t.String({ format: 'uuid', description: 'the caller\'s wallet the agent is bound to' }),
  policyId: t.Union([Uuid, t.Null()], { description: 'the policy that judges its payments (limits, merchants), set by the tenant admin' }),
  consented: t.Boolean({ description: 'whether the caller consented to this agent paying from `walletId`' }),
  grantedAt: t.Union([When, t.Null()]),
}, { title: 'AgentWalletConsent' })

const O = prose`
  The wallet's owner, with their own bearer token (any signed-in user; API keys answer 403; no token
  401): an agent not bound to one of the caller's own wallets (another user's, another tenant's,
  unknown) answers 404.`

export function walletConsentRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/agent-payments/agents', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .get('/:agentId/wallet-consent', async ({ params, caller }) => consent.getWalletConsent(await scopeOf(caller, undefined), params.agentId), {
      apAuth: 'walletOwner',
      params: AgentParams,
      response: { 200: WalletConsent, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetWalletConsent', summary: 'An agent on my wallet, and my consent', description: `${O} ${CONSENT_NOTE}` },
    })
    .post('/:agentId/wallet-consent', async ({ params, caller }) => consent.grantWalletConsent(await scopeOf(caller, undefined), params.agentId), {
      apAuth: 'walletOwner',
      params: AgentParams,
      response: { 200: WalletConsent, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: {
        operationId: 'agentPaymentsGrantWalletConsent',
        summary: 'Consent to an agent paying from my wallet',
        description: prose`
          ${O} Once per agent and wallet: the agent may then pay from the wallet within its policy (a consent
          given again answers unchanged). Audited and published as
          \`agent_payments.agent.wallet_consent_granted\` (actor: the owner). The tenant admin binding the
          agent to another wallet clears it. An archived agent answers 409 \`AGENT_ARCHIVED\`. ${CONSENT_NOTE}`,
      },
    })
    .delete('/:agentId/wallet-consent', async ({ params, caller }) => consent.revokeWalletConsent(await scopeOf(caller, undefined), params.agentId), {
      apAuth: 'walletOwner',
      params: AgentParams,
      response: { 200: WalletConsent, ...errorResponses('standard', 401, 403, 404) },
      detail: {
        operationId: 'agentPaymentsRevokeWalletConsent',
        summary: 'Withdraw my consent',
        description: prose`
          ${O} At once: no payment of the agent starts from the wallet after this (new executions 409
          \`AGENT_WALLET_CONSENT_REQUIRED\`; one waiting for an approval or a confirmation fails with that
          code when it would be paid; a payment already signed or sent goes on). Without a consent it answers
          as it is. Audited and published as \`agent_payments.agent.wallet_consent_revoked\`.`,
      },
    })
}
