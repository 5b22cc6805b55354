/** Routes 32-36: mandates. */
import { Elysia } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { lazyService } from '../../../lib/lazy'
import { J } from '../agents/agent-routes'
import { apSecurity, scopeOf } from '../agents/credentials'
import { AuthorizeMandate, CreateMandate, Mandate, MandateList, MandateListQuery, MandateParams } from './mandate-model'
import { TenantQuery } from '../model'
import { prose } from '../../../http/prose'

/** loaded with the first request that needs it */
const mandates = lazyService(() => import('./mandates'))

const STATES = 'Wrong states answer 409 `MANDATE_STATE_INVALID`.'

export function mandateRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/agent-payments/mandates', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .post('', async ({ body, caller, set }) => {
      const out = await mandates.createMandate(await scopeOf(caller, body.tenantId), body)
      set.status = 201
      return out
    }, {
      apAuth: 'operator',
      body: CreateMandate,
      response: { 201: Mandate, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: {
        operationId: 'agentPaymentsCreateMandate',
        summary: 'Create a mandate',
        description: prose`
          ${J} An AP2-style mandate for an agent, \`pending_authorization\` until a tenant admin authorizes
          it; expired by a job at \`expiresAt\`. \`intent\`: payments within \`constraints\`; \`cart\`: one
          payment of exactly \`cart.total\` to \`cart.merchantId\` (\`cart\` required, and its \`total\` the
          exact sum of quantity × unitPrice). 400 codes: \`MANDATE_INVALID\`, \`MANDATE_CART_REQUIRED\`,
          \`MANDATE_CART_NOT_ALLOWED\`, \`MANDATE_CART_TOTAL_MISMATCH\`. An unknown agent or merchant 404; an
          archived agent 409 \`AGENT_ARCHIVED\`.`,
      },
    })
    .get('', async ({ query, caller }) => mandates.listMandates(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operator',
      query: MandateListQuery,
      response: { 200: MandateList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListMandates', summary: 'List mandates', description: `${J} Newest first; \`?type&status&agentId&shopperId\` filter.` },
    })
    .get('/:mandateId', async ({ params, query, caller }) => mandates.getMandate(await scopeOf(caller, query.tenantId), params.mandateId), {
      apAuth: 'operator',
      params: MandateParams,
      query: TenantQuery,
      response: { 200: Mandate, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetMandate', summary: 'One mandate', description: J },
    })
    .post('/:mandateId/authorize', async ({ params, body, caller }) => mandates.authorizeMandate(await scopeOf(caller, body.tenantId), params.mandateId, body), {
      apAuth: 'operator',
      params: MandateParams,
      body: AuthorizeMandate,
      response: { 200: Mandate, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: {
        operationId: 'agentPaymentsAuthorizeMandate',
        summary: 'Authorize a mandate',
        description: prose`
          ${J} The caller's approval: \`pending_authorization → active\`, storing who, when and the SHA-256 of
          the content approved. With \`userAuthorization\` (AP2), the shopper's approval instead: a compact
          JWS signed by the mandate's shopper's key (ES256 or EdDSA) whose payload's \`contentHash\` is the
          mandate's content hash; 400 \`SHOPPER_KEY_MISSING\` (no shopper, or one without a key),
          \`SHOPPER_JWS_INVALID\` (malformed, another key or algorithm, tampered),
          \`SHOPPER_JWS_CONTENT_MISMATCH\` (another content), \`SHOPPER_JWS_EXPIRED\` (past its \`exp\`); 409
          \`SHOPPER_KEY_CHANGED\` when the shopper's key changed at or after the mandate's creation (a tenant
          admin may still approve it without \`userAuthorization\`); \`authorizedBy\` is then null and
          \`authorization.keyThumbprint\` (also in the audit entry) names the key that signed (RFC 7638). Past
          \`expiresAt\`: 409 \`MANDATE_EXPIRED\`. ${STATES}`,
      },
    })
    .post('/:mandateId/revoke', async ({ params, query, caller }) => mandates.revokeMandate(await scopeOf(caller, query.tenantId), params.mandateId), {
      apAuth: 'operator',
      params: MandateParams,
      query: TenantQuery,
      response: { 200: Mandate, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsRevokeMandate', summary: 'Revoke a mandate', description: prose`
        ${J} \`active → revoked\`; a mandate still \`pending_authorization\` is declined: \`→ rejected\`.
        ${STATES}` },
    })
}
