import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses, LimitOffsetQuery, OffsetPagination, page } from '../../http/schemas'
import { security } from '../../http/security'
import { Delivery, DeliveryTarget, saveWebhookBody, Webhook, WebhookTarget, WebhookWithSecret } from './model'
import * as webhooksService from './service'

const ACCESS = 'A platform admin, or a tenantadmin of that tenant (another tenant\'s id answers 404).'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  saveWebhook: prose`
    ${ACCESS} The first save answers 201 with the record and its \`secret\` (shown only then); later
    saves answer 200 with the record without the secret, and fields left out keep their values. A
    refused address answers 400 with \`details.code\` \`RAMP_WEBHOOK_INVALID\`, \`details.field\`
    \`url\` and \`details.reason\`, and nothing is saved. Names under special-use top-level domains
    (.test, .example, .invalid, .onion, .arpa, .alt) are refused because they never reach a public
    server. An unknown event type answers 422. The bank ramp or the card onramp must be connected
    for the tenant in that environment, since the events come from them (503 \`RAMP_NOT_CONFIGURED\`
    otherwise). Switching to \`disabled\` drops the deliveries still waiting.`,
  removeWebhook: prose`
    ${ACCESS} The secret is deleted and waiting deliveries are dropped; a later save creates a new
    secret.`,
  testWebhook: prose`
    ${ACCESS} Posted at once, signed like every delivery, also while the webhook is disabled, never
    retried (its outcome is in the delivery log). 10 per minute.`,
  rotateWebhookSecret: prose`
    ${ACCESS} Answers the record with the new \`secret\`, shown only now. Every delivery from now
    on, retries included, is signed with it.`,
  listWebhookDeliveries: prose`
    ${ACCESS} Each delivery with its attempts, status codes and errors. \`dropped\`: stopped because
    the webhook was removed, disabled or no longer asks for the type; \`failed\`: 10 attempts failed
    (a test delivery: its one attempt failed).`,
  requeueWebhookDelivery: prose`
    ${ACCESS} A \`failed\` or \`dropped\` delivery gets a new round of up to 10 attempts to the
    current webhook, same body and \`id\`. 409 for a delivery still queued or done, and for a test
    delivery.`,
}

/** `eventTypes`: the catalogue a webhook can ask for (WEBHOOK_EVENT_TYPES, src/services.ts). */
export function webhookRoutes(deps: Deps, eventTypes: readonly string[]) {
  return new Elysia({ prefix: '/v1/admin/tenants/:id/webhooks/:environment', detail: { tags: ['Webhooks'] } })
    .use(security(deps))
    .put('', async ({ params, body, ctx, set }) => {
      const { created, record } = await webhooksService.saveWebhook(ctx, params, body, eventTypes)
      set.status = created ? 201 : 200
      return record
    }, {
      auth: 'operator',
      params: WebhookTarget,
      body: saveWebhookBody(eventTypes),
      response: { 200: Webhook, 201: WebhookWithSecret, ...errorResponses('standard', 400, 401, 403, 404, 422, 503) },
      detail: {
        operationId: 'saveWebhook',
        summary: 'Create or change the tenant\'s webhook in one environment',
        description: descriptions.saveWebhook,
      },
    })
    .get('', ({ params, ctx }) => webhooksService.getWebhook(ctx, params), {
      auth: 'operator',
      params: WebhookTarget,
      response: { 200: Webhook, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'getWebhook', summary: 'Read the webhook (without its secret)', description: `${ACCESS} 404 when there is none.` },
    })
    .delete('', async ({ params, ctx, set }) => {
      await webhooksService.removeWebhook(ctx, params)
      set.status = 204
    }, {
      auth: 'operator',
      params: WebhookTarget,
      response: { 204: t.Void({ description: 'Removed' }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'removeWebhook', summary: 'Remove the webhook', description: descriptions.removeWebhook },
    })
    .post('/test', ({ params, ctx, set }) => {
      set.status = 202
      return webhooksService.sendTest(ctx, params)
    }, {
      auth: 'operator',
      rateLimit: { max: 10, windowSeconds: 60 },
      params: WebhookTarget,
      response: { 202: t.Object({ id: t.String({ description: 'the test delivery\'s id (`evt_...`)' }) }), ...errorResponses('standard', 400, 401, 403, 404, 429) },
      detail: { operationId: 'testWebhook', summary: 'Send a webhook.test delivery now', description: descriptions.testWebhook },
    })
    .post('/rotate-secret', ({ params, ctx }) => webhooksService.rotateWebhookSecret(ctx, params), {
      auth: 'operator',
      params: WebhookTarget,
      response: { 200: WebhookWithSecret, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'rotateWebhookSecret', summary: 'Replace the webhook secret', description: descriptions.rotateWebhookSecret },
    })
    .get('/deliveries', async ({ params, query, ctx }) => {
      const limit = query.limit ?? 50
      const offset = query.offset ?? 0
      const { data, total } = await webhooksService.listDeliveries(ctx, params, { limit, offset })
      return page(data, total, limit, offset)
    }, {
      auth: 'operator',
      params: WebhookTarget,
      query: LimitOffsetQuery,
      response: { 200: t.Object({ data: t.Array(Delivery), pagination: OffsetPagination }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'listWebhookDeliveries', summary: 'The delivery log, newest first', description: descriptions.listWebhookDeliveries },
    })
    .post('/deliveries/:deliveryId/requeue', ({ params, ctx }) => webhooksService.requeueDelivery(ctx, params), {
      auth: 'operator',
      params: DeliveryTarget,
      response: { 200: t.Object({ id: t.String(), status: t.Literal('queued') }), ...errorResponses('standard', 400, 401, 403, 404, 409) },
      detail: { operationId: 'requeueWebhookDelivery', summary: 'Re-queue a stopped delivery with the same id', description: descriptions.requeueWebhookDelivery },
    })
}
