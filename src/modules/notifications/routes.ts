/**
 * The notification inbox (`/v1/notifications`): the caller's own notifications, newest first,
 * rendered in the caller's language, and the read marker. Another user's notifications are
 * never listed nor marked.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { InboxQuery, InboxView, MarkReadBody, MarkReadView } from './model'
import * as service from './service'

const WHO = 'Bearer; a user of a tenant (a platform admin has no inbox: 403). Only the caller\'s own notifications.'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  notificationInbox: [
    prose`
      ${WHO} \`limit\` (default 20, 1 to 100) and \`skip\` (default 0) page through them; out of
      bounds or not an integer: 400. \`total\` counts all of the caller's notifications, \`unread\`
      those not marked read.`,
    prose`
      Kinds: \`transaction.confirmed\` and \`transaction.failed\` (a send or swap of the caller that
      the status job saw mined or failed, once per change), \`transfer.incoming\` (a confirmed send
      of another user of the tenant to a wallet of the caller), \`ramp.kyc\`, \`ramp.deposit\`,
      \`ramp.payout\` (a bank ramp status the caller sees changed), \`card_onramp.updated\`.`,
    prose`
      \`title\` and \`body\` are rendered when read, in the caller's language: \`locale\` set with
      \`PATCH /v1/users/me/fcm-token\` (\`en\` or \`it\`, default \`en\`), so changing it changes
      the whole inbox. \`data\` keeps what the words were made from: ids, chain, statuses, and
      amounts as strings (integer text in the smallest unit with \`decimals\`, or decimal text),
      never JSON numbers.`,
    prose`
      Each notification is also pushed once to the device token of \`PATCH /v1/users/me/fcm-token\`
      when the deployment configures FCM (docs/notifications.md).`,
  ].join('\n\n'),
  markNotificationsRead: prose`
    ${WHO} With \`ids\` (at most 100): those of the caller's unread notifications; without: every
    unread notification of the caller created up to now (one written after the call stays unread).
    Ids that are unknown, already read, or another user's change nothing and are not an error:
    \`updated\` counts what this call marked. Marking read is for good (there is no unread marker).`,
}

export function notificationRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/notifications', detail: { tags: ['Notifications'] } })
    .use(security(deps))
    .get('/inbox', ({ query, ctx }) => service.inbox(ctx, query), {
      auth: 'any',
      query: InboxQuery,
      response: { 200: InboxView, ...errorResponses('standard', 400, 401, 403) },
      detail: {
        operationId: 'notificationInbox',
        summary: 'The caller\'s notifications, newest first',
        description: descriptions.notificationInbox,
      },
    })
    .post('/inbox/read', ({ body, ctx }) => service.markRead(ctx, body), {
      auth: 'any',
      body: MarkReadBody,
      response: { 200: MarkReadView, ...errorResponses('standard', 400, 401, 403) },
      detail: {
        operationId: 'markNotificationsRead',
        summary: 'Mark the caller\'s notifications read',
        description: descriptions.markNotificationsRead,
      },
    })
}
