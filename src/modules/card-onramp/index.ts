/** The card onramp module's face: the webhook event types it publishes, and its routes. */
export { CARD_ONRAMP_EVENT_TYPES } from './event-types'
export { cardOnrampRoutes } from './routes'
