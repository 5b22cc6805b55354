/**
 * Every table of the database, for drizzle-kit (and tests that look into a table). The
 * core tables live in ./schema.ts; each module keeps its own in its `schema.ts`, which
 * only that module's repo reads and writes.
 */
export * from './schema'
export * from '../jobs/schema'
export * from '../modules/webhooks/schema'
export * from '../modules/wallets/schema'
export * from '../modules/mail/schema'
export * from '../modules/password-reset/schema'
export * from '../modules/transactions/schema'
export * from '../modules/ramp/schema'
export * from '../sandbox/bank-ramp/schema'
export * from '../modules/swaps/schema'
export * from '../modules/mpc/schema'
export * from '../modules/card-onramp/schema'
export * from '../modules/notifications/schema'
export * from '../modules/lending/schema'
export * from '../modules/dapps/schema'
export * from '../modules/portfolio/schema'
export * from '../modules/agent-payments/schema'
