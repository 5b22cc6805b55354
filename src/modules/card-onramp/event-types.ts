/** The card onramp's webhook event type (spec, Event types): src/services.ts lists it in the webhook catalogue. */
export const CARD_ONRAMP_EVENT_TYPES = ['ramp.card_session.updated'] as const
