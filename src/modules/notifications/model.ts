/** Request and answer schemas of the notification inbox. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { grouped, MAX_OFFSET } from '../../http/schemas'
import { NOTIFICATION_KINDS, type NotificationKind } from './notify'

export const InboxQuery = t.Object({
  limit: t.Optional(integer({ minimum: 1, maximum: 100, default: 20, description: '1 to 100' })),
  skip: t.Optional(integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: `notifications to skip, newest first; 0 to ${grouped(MAX_OFFSET)}` })),
})
export type InboxQuery = typeof InboxQuery.static

// listed one by one so the answer's type names each kind; a kind added to NOTIFICATION_KINDS
// and not here fails `tsc` below
const [k1, k2, k3, k4, k5, k6, k7] = NOTIFICATION_KINDS
export const NotificationKindSchema = t.Union([t.Literal(k1), t.Literal(k2), t.Literal(k3), t.Literal(k4), t.Literal(k5), t.Literal(k6), t.Literal(k7)], {
  description: 'what happened (docs/notifications.md lists each kind\'s `data` keys); clients should show an unknown kind by its `title` and `body`',
})

const everyKindListed: [NotificationKind] extends [typeof NotificationKindSchema.static] ? true : never = true
void everyKindListed

export const NotificationView = t.Object({
  id: t.String({ description: 'notification id (UUID)' }),
  kind: NotificationKindSchema,
  title: t.String({ description: 'in the user\'s language (`en` or `it`, set with `PATCH /v1/users/me/fcm-token`), rendered when read' }),
  body: t.String({ description: 'in the user\'s language, rendered when read' }),
  data: t.Record(t.String(), t.Union([t.String(), t.Null()]), {
    description: 'what the notification is about, every value a string or null: ids (`transactionId`, `walletId`, `depositId`, `payoutId`, `sessionId`), `chain`, `network`, `status`, '
      + 'amounts as integer text in the smallest unit with `decimals` (`amount`) or as decimal text (`fiatAmount`, `destinationAmount`), never JSON numbers',
    examples: [{ transactionId: '0b9f3c4e-6a1d-4f0e-9c2b-7d5e8a1f2c3b', type: 'send', chain: 'ethereum', network: 'sepolia', amount: '1230000000000000000', decimals: '18', symbol: 'ETH' }],
  }),
  readAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'when the user marked it read; null while unread' }),
  createdAt: t.String({ format: 'date-time' }),
})

export const InboxView = t.Object({
  notifications: t.Array(NotificationView, { description: 'newest first' }),
  total: integer({ description: 'the caller\'s notifications in all' }),
  unread: integer({ description: 'of those, how many are unread' }),
})

export const MarkReadBody = t.Object({
  ids: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 64 }), {
    maxItems: 100,
    description: 'notifications to mark read (at most 100); omitted: every notification of the caller created up to now. Ids that are not the caller\'s unread notifications change nothing',
  })),
}, { examples: [{ ids: ['0b9f3c4e-6a1d-4f0e-9c2b-7d5e8a1f2c3b'] }] })
export type MarkReadBody = typeof MarkReadBody.static

export const MarkReadView = t.Object({ updated: integer({ description: 'notifications this call marked read (already read ones are not counted)' }) })
