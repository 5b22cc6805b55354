import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { errorResponses, LimitOffsetQuery, OffsetPagination } from '../../http/schemas'
import { security } from '../../http/security'
import { page } from '../../http/schemas'
import { WEBHOOK_EVENT_TYPES } from './publish'
import * as webhooksService from './service'

const Params = t.Object({
  id: t.String({ maxLength: 64, description: 'tenant id (UUID)' }),
  environment: t.Union([t.Literal('sandbox'), t.Literal('production')]),
})
const DeliveryParams = t.Composite([Params, t.Object({ deliveryId: t.String({ maxLength: 64, description: 'the delivery id (`evt_...`, the `X-Webhook-Id`)' }) })])

const EventTypes = t.Array(t.String({ maxLength: 100 }), { maxItems: 50, description: `types received; empty means every type, including types published later. Known: ${WEBHOOK_EVENT_TYPES.join(', ')}` })
const WebhookStatus = t.Union([t.Literal('active'), t.Literal('disabled')])

const Webhook = t.Object({
  id: t.String({ format: 'uuid' }),
  environment: t.Union([t.Literal('sandbox'), t.Literal('production')]),
  url: t.String({ description: 'as the URL parser writes it: lowercase host, punycode, `:443` dropped' }),
  eventTypes: t.Array(t.String()),
  status: WebhookStatus,
  secretHint: t.String({ description: 'the four characters before the secret\'s final `=`' }),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Webhook' })
const WebhookWithSecret = t.Composite([Webhook, t.Object({ secret: t.String({ description: '`whsec_` + base64 of 32 random bytes; shown only now' }) })], { title: 'WebhookWithSecret' })

const Delivery = t.Object({
  id: t.String({ description: '`evt_` + 32 hex: the `X-Webhook-Id`, the same on every attempt' }),
  type: t.String(),
  status: t.Union([t.Literal('queued'), t.Literal('done'), t.Literal('failed'), t.Literal('dropped')]),
  attempts: t.Integer({ description: 'attempts made in the current round' }),
  lastStatusCode: t.Union([t.Integer(), t.Null()]),
  lastError: t.Union([t.String(), t.Null()]),
  nextAttemptAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  attemptLog: t.Array(t.Object({
    round: t.Integer({ description: '1, then one more for each re-queue' }),
    attempt: t.Integer(),
    at: t.String({ format: 'date-time' }),
    statusCode: t.Union([t.Integer(), t.Null()]),
    error: t.Union([t.String(), t.Null()]),
    durationMs: t.Integer(),
  })),
}, { title: 'WebhookDelivery' })

const ACCESS = 'A platform admin, or a tenantadmin of that tenant (another tenant\'s id answers 404).'

export function webhookRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/admin/tenants/:id/webhooks/:environment', detail: { tags: ['Webhooks'] } })
    .use(security(deps))
    .put('', async ({ params, body, ctx, set }) => {
      const { created, record } = await webhooksService.saveWebhook(ctx, params.id, params.environment, body)
      set.status = created ? 201 : 200
      return record
    }, {
      auth: 'operator',
      params: Params,
      body: t.Object({
        // Longer addresses are refused by the address rules with RAMP_WEBHOOK_INVALID, not by the schema.
        url: t.Optional(t.String({ maxLength: 8192, description: 'required on creation; https on 443, public DNS name, at most 2048 characters' })),
        eventTypes: t.Optional(EventTypes),
        status: t.Optional(WebhookStatus),
      }, { additionalProperties: false }),
      response: { 200: Webhook, 201: WebhookWithSecret, ...errorResponses('standard', 400, 401, 403, 404, 422, 503) },
      detail: {
        operationId: 'saveWebhook',
        summary: 'Create or change the tenant\'s webhook in one environment',
        description: `${ACCESS} The first save answers 201 with the record and its \`secret\` (shown only then); later saves answer 200 with the record without the secret, and fields left out keep their values. A refused address answers 400 with \`details.code\` \`RAMP_WEBHOOK_INVALID\`, \`details.field\` \`url\` and \`details.reason\`, and nothing is saved. Names under special-use top-level domains (.test, .example, .invalid, .onion, .arpa, .alt) are refused because they never reach a public server. An unknown event type answers 422. The bank ramp must be connected for the tenant in that environment (503 \`RAMP_NOT_CONFIGURED\` otherwise). Switching to \`disabled\` drops the deliveries still waiting.`,
      },
    })
    .get('', ({ params, ctx }) => webhooksService.getWebhook(ctx, params.id, params.environment), {
      auth: 'operator',
      params: Params,
      response: { 200: Webhook, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'getWebhook', summary: 'Read the webhook (without its secret)', description: `${ACCESS} 404 when there is none.` },
    })
    .delete('', async ({ params, ctx, set }) => {
      await webhooksService.removeWebhook(ctx, params.id, params.environment)
      set.status = 204
    }, {
      auth: 'operator',
      params: Params,
      response: { 204: t.Void({ description: 'Removed' }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'removeWebhook', summary: 'Remove the webhook', description: `${ACCESS} The secret is deleted and waiting deliveries are dropped; a later save creates a new secret.` },
    })
    .post('/test', ({ params, ctx, set }) => {
      set.status = 202
      return webhooksService.sendTest(ctx, params.id, params.environment)
    }, {
      auth: 'operator',
      rateLimit: { max: 10, windowSeconds: 60 },
      params: Params,
      response: { 202: t.Object({ id: t.String({ description: 'the test delivery\'s id (`evt_...`)' }) }), ...errorResponses('standard', 400, 401, 403, 404, 429) },
      detail: { operationId: 'testWebhook', summary: 'Send a webhook.test delivery now', description: `${ACCESS} Posted at once, signed like every delivery, also while the webhook is disabled, never retried (its outcome is in the delivery log). 10 per minute.` },
    })
    .post('/rotate-secret', ({ params, ctx }) => webhooksService.rotateWebhookSecret(ctx, params.id, params.environment), {
      auth: 'operator',
      params: Params,
      response: { 200: WebhookWithSecret, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'rotateWebhookSecret', summary: 'Replace the webhook secret', description: `${ACCESS} Answers the record with the new \`secret\`, shown only now. Every delivery from now on, retries included, is signed with it.` },
    })
    .get('/deliveries', async ({ params, query, ctx }) => {
      const limit = query.limit ?? 50
      const offset = query.offset ?? 0
      const { data, total } = await webhooksService.listDeliveries(ctx, params.id, params.environment, limit, offset)
      return page(data, total, limit, offset)
    }, {
      auth: 'operator',
      params: Params,
      query: LimitOffsetQuery,
      response: { 200: t.Object({ data: t.Array(Delivery), pagination: OffsetPagination }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'listWebhookDeliveries', summary: 'The delivery log, newest first', description: `${ACCESS} Each delivery with its attempts, status codes and errors. \`dropped\`: stopped because the webhook was removed, disabled or no longer asks for the type; \`failed\`: 10 attempts failed (a test delivery: its one attempt failed).` },
    })
    .post('/deliveries/:deliveryId/requeue', ({ params, ctx }) => webhooksService.requeueDelivery(ctx, params.id, params.environment, params.deliveryId), {
      auth: 'operator',
      params: DeliveryParams,
      response: { 200: t.Object({ id: t.String(), status: t.Literal('queued') }), ...errorResponses('standard', 400, 401, 403, 404, 409) },
      detail: { operationId: 'requeueWebhookDelivery', summary: 'Re-queue a stopped delivery with the same id', description: `${ACCESS} A \`failed\` or \`dropped\` delivery gets a new round of up to 10 attempts to the current webhook, same body and \`id\`. 409 for a delivery still queued or done, and for a test delivery.` },
    })
}
