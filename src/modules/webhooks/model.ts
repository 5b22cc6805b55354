/** Request and response schemas of the webhook routes; the service takes their static types. */
import { t } from 'elysia'
import { integer } from '../../http/integer'

const Environment = t.Union([t.Literal('sandbox'), t.Literal('production')])

/** Which webhook: the tenant and the environment in the path. */
export const WebhookTarget = t.Object({
  id: t.String({ maxLength: 64, description: 'tenant id (UUID)' }),
  environment: Environment,
})
export type WebhookTarget = typeof WebhookTarget.static

export const DeliveryTarget = t.Composite([WebhookTarget, t.Object({ deliveryId: t.String({ maxLength: 64, description: 'the delivery id (`evt_...`, the `X-Webhook-Id`)' }) })])
export type DeliveryTarget = typeof DeliveryTarget.static

const EventTypes = (known: readonly string[]) => t.Array(t.String({ maxLength: 100 }), {
  maxItems: 50,
  description: `types received; empty means every type, including types published later. Known: ${known.join(', ')}`,
})
const WebhookStatus = t.Union([t.Literal('active'), t.Literal('disabled')])

/** The save body, documenting the catalogue of event types (src/services.ts) it is given. */
export const saveWebhookBody = (known: readonly string[]) => t.Object({
  // Longer addresses are refused by the address rules with RAMP_WEBHOOK_INVALID, not by the schema.
  url: t.Optional(t.String({ maxLength: 8192, description: 'required on creation; https on 443, public DNS name, at most 2048 characters' })),
  eventTypes: t.Optional(EventTypes(known)),
  status: t.Optional(WebhookStatus),
}, { additionalProperties: false, examples: [{ url: 'https://hooks.example.com/slipway', eventTypes: ['ramp.kyc.updated', 'ramp.deposit.updated'] }] })
export type SaveWebhook = ReturnType<typeof saveWebhookBody>['static']

export const Webhook = t.Object({
  id: t.String({ format: 'uuid' }),
  environment: Environment,
  url: t.String({ description: 'as the URL parser writes it: lowercase host, punycode, `:443` dropped' }),
  eventTypes: t.Array(t.String()),
  status: WebhookStatus,
  secretHint: t.String({ description: 'the four characters before the secret\'s final `=`' }),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Webhook' })
export const WebhookWithSecret = t.Composite([Webhook, t.Object({ secret: t.String({ description: '`whsec_` + base64 of 32 random bytes; shown only now' }) })], { title: 'WebhookWithSecret' })

export const Delivery = t.Object({
  id: t.String({ description: '`evt_` + 32 hex: the `X-Webhook-Id`, the same on every attempt' }),
  type: t.String(),
  status: t.Union([t.Literal('queued'), t.Literal('done'), t.Literal('failed'), t.Literal('dropped')]),
  attempts: integer({ description: 'attempts made in the current round' }),
  lastStatusCode: t.Union([integer(), t.Null()]),
  lastError: t.Union([t.String(), t.Null()]),
  nextAttemptAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  attemptLog: t.Array(t.Object({
    round: integer({ description: '1, then one more for each re-queue' }),
    attempt: integer(),
    at: t.String({ format: 'date-time' }),
    statusCode: t.Union([integer(), t.Null()]),
    error: t.Union([t.String(), t.Null()]),
    durationMs: integer(),
  })),
}, { title: 'WebhookDelivery' })
