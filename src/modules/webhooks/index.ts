/**
 * The webhooks module's face: publishing an event (in the caller's write), the group
 * subscriptions another module keeps (agent payments'), the checks an outbound URL passes,
 * the operators' listener (`slipway webhooks listen`), its jobs and its routes.
 */
export { eventStatements, eventTargets, eventTargetsAsRead, eventTargetsOf, eventTargetsQuery, publishEvent, publishToOwned, type EventTargets } from './publish'
export { AddressRefused } from './address'
export { checkSubscriptionUrl, findSubscription, insertSubscription, listSubscriptions, removeSubscription, subscriptionDeliveries, updateSubscription } from './subscriptions'
export type { WebhookRow } from './subscriptions'
export { OutboundRefused, fetchPublic } from './transport'
export { deliverySummary } from './service'
export type { CommandCtx } from './service'
export { ListenRefused, currentDevRoute, startListening, stopListening } from './dev-listen'
export type { ListenSession } from './dev-listen'
export { verifyDelivery } from './signature'
export { sealedColumns } from './sealed'
export { registerWebhookJobs } from './jobs'
export { webhookRoutes } from './routes'
