/** The webhook event types the gas sponsorship module publishes (src/services.ts assembles the catalogue). */
export const GAS_EVENT_TYPES = ['gas.paymaster.deposit_low'] as const
