/** Routes 48-53: the group's own webhook subscriptions. */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { lazyService } from '../../../lib/lazy'
import { J } from '../agents/agent-routes'
import { apSecurity, scopeOf } from '../agents/credentials'
import { TenantQuery } from '../model'
import { ApWebhook, ApWebhookDeliveryList, ApWebhookList, ApWebhookWithSecret, CreateApWebhook, UpdateApWebhook, WebhookPageQuery, WebhookParams } from './webhook-model'
import { prose } from '../../../http/prose'
/** loaded with the first request that needs it */
const service = lazyService(() => import('./webhook-subscriptions'))

const ABOUT = 'Delivered like the tenant\'s platform webhook (same signature headers, retries, address checks at every attempt, delivery log), independently of it.'

export function webhookSubscriptionRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/agent-payments/webhooks', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .post('', async ({ body, caller, set }) => {
      const out = await service.createWebhook(await scopeOf(caller, body.tenantId), body)
      set.status = 201
      return out
    }, {
      apAuth: 'operator',
      body: CreateApWebhook,
      response: { 201: ApWebhookWithSecret, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'agentPaymentsCreateWebhook', summary: 'Subscribe an address to agent payments events', description: prose`
        ${J} Only \`agent_payments.*\` types (empty: all). Answers the \`secret\` once: only its sealed form
        and a hint are kept. A refused address answers 400 \`AGENT_PAYMENTS_WEBHOOK_INVALID\`. ${ABOUT}` },
    })
    .get('', async ({ query, caller }) => service.listWebhooks(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operator',
      query: WebhookPageQuery,
      response: { 200: ApWebhookList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListWebhooks', summary: 'List the group\'s webhook subscriptions', description: `${J} Newest first; never a secret.` },
    })
    .get('/:webhookId', async ({ params, query, caller }) => service.getWebhook(await scopeOf(caller, query.tenantId), params.webhookId), {
      apAuth: 'operator',
      params: WebhookParams,
      query: TenantQuery,
      response: { 200: ApWebhook, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetWebhook', summary: 'One webhook subscription', description: J },
    })
    .patch('/:webhookId', async ({ params, query, body, caller }) => service.updateWebhook(await scopeOf(caller, query.tenantId), params.webhookId, body), {
      apAuth: 'operator',
      params: WebhookParams,
      query: TenantQuery,
      body: UpdateApWebhook,
      response: { 200: ApWebhook, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'agentPaymentsUpdateWebhook', summary: 'Change a webhook subscription', description: prose`
        ${J} url, eventTypes, enabled. Disabling drops the deliveries still waiting; changes made while
        disabled are never sent.` },
    })
    .delete('/:webhookId', async ({ params, query, caller, set }) => {
      await service.removeWebhook(await scopeOf(caller, query.tenantId), params.webhookId)
      set.status = 204
    }, {
      apAuth: 'operator',
      params: WebhookParams,
      query: TenantQuery,
      response: { 204: t.Void({ description: 'Removed' }), ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsDeleteWebhook', summary: 'Remove a webhook subscription', description: `${J} Its secret goes with it; waiting deliveries are dropped.` },
    })
    .get('/:webhookId/deliveries', async ({ params, query, caller }) => service.listDeliveries(await scopeOf(caller, query.tenantId), params.webhookId, query), {
      apAuth: 'operator',
      params: WebhookParams,
      query: WebhookPageQuery,
      response: { 200: ApWebhookDeliveryList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListWebhookDeliveries', summary: prose`
        A subscription's deliveries, newest first`, description: prose`
        ${J} Each delivery with its attempts, status codes, errors and next retry.` },
    })
}
