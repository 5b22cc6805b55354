/** The bank ramp's webhook event types (spec, Event types): src/services.ts lists them in the webhook catalogue. */
export const RAMP_EVENT_TYPES = ['ramp.kyc.updated', 'ramp.deposit.updated', 'ramp.transaction.updated', 'ramp.payout.updated'] as const
