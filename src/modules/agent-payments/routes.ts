/**
 * The agent payments group (`/v1/agent-payments`): agents, policies, merchants, their API
 * keys, shoppers, mandates, executions, approvals, the group's own webhook subscriptions
 * (webhook-routes.ts) and the audit log: routes 1-54 of the spec's table, route 37 on both
 * rails (onchain, x402); beyond the table, a shopper's own key change (shopper-routes.ts) and
 * the wallet owner's consent (wallet-consent-routes.ts). Decisions: docs/agent-payments.md.
 */
import type { StepUpCheck } from '../../context'
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { errorResponses } from '../../http/schemas'
import { agentRoutes, J } from './agents/agent-routes'
import { listAudit } from './audit'
import { apSecurity, scopeOf } from './agents/credentials'
import { mandateRoutes } from './mandates/mandate-routes'
import { executionRoutes } from './executions/execution-routes'
import { merchantRoutes } from './merchants/merchant-routes'
import { AuditList, AuditQuery } from './model'
import { policyRoutes } from './policies/policy-routes'
import { webhookSubscriptionRoutes } from './webhooks/webhook-routes'
import { shopperRoutes } from './merchants/shopper-routes'
import { walletConsentRoutes } from './agents/wallet-consent-routes'
import { prose } from '../../http/prose'

/** `stepUp`: the passkeys module's approval check (agent API keys, approving an execution), wired in src/services.ts. */
export function agentPaymentRoutes(deps: Deps, stepUp: StepUpCheck) {
  return new Elysia({ detail: { tags: ['Agent payments'] } })
    .use(agentRoutes(deps, stepUp))
    .use(policyRoutes(deps))
    .use(merchantRoutes(deps))
    .use(shopperRoutes(deps))
    .use(mandateRoutes(deps))
    .use(executionRoutes(deps, stepUp))
    .use(webhookSubscriptionRoutes(deps))
    .use(walletConsentRoutes(deps))
    .use(new Elysia({ prefix: '/v1/agent-payments', detail: { tags: ['Agent payments'] } })
      .use(apSecurity(deps))
      .get('/audit-log', async ({ query, caller }) => listAudit(await scopeOf(caller, query.tenantId), query), {
        apAuth: 'operator',
        query: AuditQuery,
        response: { 200: AuditList, ...errorResponses('standard', 401, 403, 404) },
        detail: { operationId: 'agentPaymentsAuditLog', summary: 'The group\'s audit log', description: prose`
          ${J} Every change (who, what, the resource before and after, never a key or its hash), newest first;
          \`?resourceType&resourceId&actorType\` filter.` },
      }))
}
