/** What the wallet routes load on their first request (see routes.ts): the services and, through them, the chain libraries. */
export * as service from './service'
export * as custody from './custody'
export * as balances from './balances'
