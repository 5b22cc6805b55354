/**
 * Bank ramp, part 1: the tenant's switches, KYC with the partner's hosted onboarding, virtual
 * IBANs that convert EUR transfers to a stablecoin at a user's wallet, and the records the
 * partner's events keep up to date (events.ts). Access and the partner client: access.ts.
 */
export * from './onboarding'
export * from './payins'
export * from './partner-webhook'
