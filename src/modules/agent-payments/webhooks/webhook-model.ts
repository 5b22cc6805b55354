/** Request and answer shapes of the group's own webhook subscriptions (routes 48-53). */
import { t } from 'elysia'
import { integer } from '../../../http/integer'
import { Limit, Offset } from '../../../http/schemas'
import { AGENT_PAYMENTS_EVENT_TYPES } from '../event-types'
import { Uuid } from '../model'
import { prose } from '../../../http/prose'

const TenantIdField = t.Optional(t.String({ format: 'uuid', description: 'platform admins: the tenant acted on (also accepted in the query); a tenantadmin may leave it out' }))
const EventType = t.Union(AGENT_PAYMENTS_EVENT_TYPES.map((e) => t.Literal(e)), { description: 'an `agent_payments.*` event type' })
const EventTypes = t.Array(EventType, { maxItems: 50, uniqueItems: true, description: 'the types sent; empty means every `agent_payments.*` type, including types added later' })
const Url = t.String({ minLength: 1, maxLength: 8192, description: prose`
  https on 443, a public DNS name, at most 2048 characters (the platform webhook's rules); a refused
  address answers 400 \`AGENT_PAYMENTS_WEBHOOK_INVALID\`` })
const When = t.String({ format: 'date-time' })

export const WebhookParams = t.Object({ webhookId: Uuid })

export const CreateApWebhook = t.Object({
  tenantId: TenantIdField,
  url: Url,
  eventTypes: EventTypes,
}, { additionalProperties: false, examples: [{ url: 'https://hooks.example.com/agent-payments', eventTypes: ['agent_payments.execution.succeeded', 'agent_payments.approval.created'] }] })
export type CreateApWebhook = typeof CreateApWebhook.static

export const UpdateApWebhook = t.Object({
  url: t.Optional(Url),
  eventTypes: t.Optional(EventTypes),
  enabled: t.Optional(t.Boolean({ description: 'false: nothing is sent, and deliveries still waiting are dropped' })),
}, { additionalProperties: false, minProperties: 1, examples: [{ enabled: false }] })
export type UpdateApWebhook = typeof UpdateApWebhook.static

export const ApWebhook = t.Object({
  id: Uuid,
  url: t.String({ description: 'as the URL parser writes it' }),
  eventTypes: t.Array(t.String()),
  enabled: t.Boolean(),
  secretHint: t.String({ description: 'the four characters before the secret\'s final `=`' }),
  createdAt: When,
  updatedAt: When,
}, { title: 'AgentPaymentsWebhook' })

export const ApWebhookWithSecret = t.Composite([ApWebhook, t.Object({ secret: t.String({ description: prose`
  \`whsec_…\`, shown only now; deliveries are signed with it like the platform's webhooks` }) })], { title: 'AgentPaymentsWebhookWithSecret' })

export const ApWebhookList = t.Object({ data: t.Array(ApWebhook), total: integer({ description: 'number of items matching, all pages' }) }, { title: 'AgentPaymentsWebhookList' })

export const ApWebhookDelivery = t.Object({
  id: t.String({ description: '`evt_` + 32 hex: the `X-Webhook-Id`, the same on every attempt' }),
  type: t.String(),
  environment: t.Union([t.Literal('sandbox'), t.Literal('production')]),
  status: t.Union([t.Literal('queued'), t.Literal('done'), t.Literal('failed'), t.Literal('dropped')]),
  attempts: integer({ description: 'attempts made' }),
  lastStatusCode: t.Union([integer(), t.Null()]),
  lastError: t.Union([t.String(), t.Null()]),
  nextAttemptAt: t.Union([When, t.Null()], { description: 'the next retry, null when none is due' }),
  createdAt: When,
  updatedAt: When,
  attemptLog: t.Array(t.Object({
    attempt: integer(),
    at: When,
    statusCode: t.Union([integer(), t.Null()]),
    error: t.Union([t.String(), t.Null()]),
    durationMs: integer(),
  })),
}, { title: 'AgentPaymentsWebhookDelivery' })

export const ApWebhookDeliveryList = t.Object({ data: t.Array(ApWebhookDelivery), total: integer() }, { title: 'AgentPaymentsWebhookDeliveryList' })

export const WebhookPageQuery = t.Object({ tenantId: TenantIdField, limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset) })
