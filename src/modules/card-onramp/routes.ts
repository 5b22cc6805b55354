/**
 * Card onramp routes (`/v1/ramp/card`). The catalogue names no paths for them; these are
 * Slipway's (docs/card-onramp.md): a user's sessions with a bearer token, the tenant's own-wallet
 * sessions tenant-signed, and the provider's signed events.
 */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { stateOf } from '../../http/request-state'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import * as M from './model'

const service = lazyService(() => import('./service'))
const events = lazyService(() => import('./events'))

const PATHS = 'The catalogue shows no paths for card onramp sessions: these are Slipway\'s.'
const ACCESS = prose`
  The tenant must have \`cardOnramp.enabled\` and the environment
  \`cardOnramp.<environment>.connected\` (403 \`CARD_ONRAMP_NOT_ENABLED\`); production needs the
  provider's \`baseUrl\`, \`apiKey\` and \`webhookKey\` (503 \`CARD_ONRAMP_NOT_CONFIGURED\`); the
  sandbox without \`baseUrl\` uses the embedded sandbox provider.`
const PROVIDER = 'Provider failures: 503 `CARD_ONRAMP_UNAVAILABLE` or `CARD_ONRAMP_RATE_LIMITED`, 502 `CARD_ONRAMP_AUTHENTICATION_FAILED`, 400 `CARD_ONRAMP_REFUSED` with the provider\'s reason.'
const SECRET = 'The provider\'s client secret is never stored or answered: send the user to `redirectUrl` (the provider\'s hosted onramp), answered by the create call only.'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  cardOnrampCreateSession: prose`
    ${PATHS} Opens a session with the card provider (Stripe's crypto onramp protocol) delivering to
    the wallet's address, locked; the wallet's network decides the environment (testnet: sandbox).
    \`sourceAmount\` or \`destinationAmount\`, not both; currencies default to the provider's
    (\`usdc\` delivered). Chains: ethereum, polygon, base, avalanche, solana (else 400
    \`CARD_ONRAMP_CHAIN_UNSUPPORTED\`). ${SECRET} Its status then follows the provider's events;
    each change from \`initialized\` posts \`ramp.card_session.updated\`. ${ACCESS} ${PROVIDER} 404
    for another user's wallet. 20 per minute per IP.`,
  cardOnrampListSessions: prose`
    ${PATHS} Newest first; \`limit\` (default 20, max 100) and \`offset\`, answered as
    \`{ sessions, total, limit, offset }\` like the bank ramp's lists. Read from Slipway's record.`,
  cardOnrampGetSession: prose`
    ${PATHS} The session as \`ramp.card_session.updated\` carries it. Another user's or tenant's id
    answers 404 \`CARD_ONRAMP_SESSION_NOT_FOUND\`.`,
  cardOnrampCreateTenantSession: prose`
    ${PATHS} For a tenant that keeps its own wallets: the crypto goes to \`walletAddress\` on
    \`chain\`, on behalf of the end user \`externalId\` (answered as \`customer\`).
    \`isTestnet: true\` (or a testnet chain id) is the sandbox. ${SECRET} ${ACCESS} ${PROVIDER} 60
    per minute per IP.`,
  cardOnrampListTenantSessions: prose`
    ${PATHS} Newest first, optionally of one \`externalId\`; \`limit\` (default 20, max 100),
    \`offset\`.`,
  cardOnrampGetTenantSession: `${PATHS} Another tenant's id, or a user's session, answers 404.`,
  cardOnrampProviderWebhook: prose`
    Called by the provider, not by apps; give it
    \`{PUBLIC_BASE_URL}/v1/ramp/card/webhooks/<environment>/<tenantId>\`.
    \`Stripe-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256(webhook secret, t + "." + raw body)>\`
    within 300 seconds, checked by the \`stripe\` package (the tenant's
    \`cardOnramp.<environment>.webhookKey\`; derived for the embedded sandbox provider). 401
    \`CARD_ONRAMP_EVENT_SIGNATURE\` for a bad or stale signature, and alike for a tenant unknown or
    not connected; 413 over 64 KiB. Repeated events, events older than the last applied and moves
    the session cannot make answer 200 with \`applied: false\` and change nothing.`,
}

export function cardOnrampRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/ramp/card', detail: { tags: ['Card onramp'] } })
    .use(security(deps))
    .post('/sessions', async ({ body, ctx, set }) => {
      const out = await service.createForUser(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      body: M.CreateBody,
      response: { 201: M.CreatedSession, ...errorResponses('standard', 400, 401, 403, 404, 429, 502, 503) },
      detail: {
        operationId: 'cardOnrampCreateSession',
        summary: 'Open a card onramp session for one of the caller\'s wallets',
        description: descriptions.cardOnrampCreateSession,
      },
    })
    .get('/sessions', ({ query, ctx }) => service.listForUser(ctx, query), {
      auth: 'any',
      query: M.ListQuery,
      response: { 200: M.SessionPage, ...errorResponses('standard', 400, 401, 403) },
      detail: { operationId: 'cardOnrampListSessions', summary: 'The caller\'s card onramp sessions', description: descriptions.cardOnrampListSessions },
    })
    .get('/sessions/:id', ({ params, ctx }) => service.readForUser(ctx, params.id), {
      auth: 'any',
      params: M.Id,
      response: { 200: M.CardSession, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'cardOnrampGetSession', summary: 'One card onramp session of the caller', description: descriptions.cardOnrampGetSession },
    })
    .post('/tenant/sessions', async ({ body, tenant, set }) => {
      const out = await service.createForTenant(deps, tenant, body)
      set.status = 201
      return out
    }, {
      tenantSigned: true,
      rateLimit: { max: 60, windowSeconds: 60 },
      body: M.TenantCreateBody,
      response: { 201: M.CreatedSession, ...errorResponses('standard', 400, 401, 403, 429, 502, 503) },
      detail: {
        operationId: 'cardOnrampCreateTenantSession',
        summary: 'Open a card onramp session for the tenant\'s own wallet (tenant-signed)',
        description: descriptions.cardOnrampCreateTenantSession,
      },
    })
    .get('/tenant/sessions', ({ query, tenant }) => service.listForTenant(deps, tenant, query), {
      tenantSigned: true,
      query: M.TenantListQuery,
      response: { 200: M.SessionPage, ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'cardOnrampListTenantSessions', summary: 'The tenant\'s own-wallet sessions (tenant-signed)', description: descriptions.cardOnrampListTenantSessions },
    })
    .get('/tenant/sessions/:id', ({ params, tenant }) => service.readForTenant(deps, tenant, params.id), {
      tenantSigned: true,
      params: M.Id,
      response: { 200: M.CardSession, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'cardOnrampGetTenantSession', summary: 'One of the tenant\'s own-wallet sessions (tenant-signed)', description: descriptions.cardOnrampGetTenantSession },
    })
    .post('/webhooks/:environment/:tenantId', ({ params, request, body: _parsed }) => events.receiveEvent(
      deps,
      params.environment,
      params.tenantId,
      stateOf(request).raw ?? new Uint8Array(),
      request.headers.get('stripe-signature'),
    ), {
      params: M.WebhookParams,
      body: t.Unknown({
        description: prose`
          the provider's event
          \`{ id, type: crypto.onramp_session_updated, created, data: { object: crypto.onramp_session } }\``,
        examples: [{
          id: 'evt_1',
          object: 'event',
          type: 'crypto.onramp_session_updated',
          created: 1795600000,
          data: { object: { id: 'cos_1', object: 'crypto.onramp_session', status: 'fulfillment_processing' } },
        }],
      }),
      response: { 200: M.WebhookAnswer, ...errorResponses('standard', 400, 401, 413) },
      detail: {
        operationId: 'cardOnrampProviderWebhook',
        tags: ['Card onramp provider'],
        summary: 'Inbound events of the card onramp provider',
        description: descriptions.cardOnrampProviderWebhook,
      },
    })
}
