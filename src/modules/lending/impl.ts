/** The lending verbs routes.ts loads with the first lending request, and with them the chain libraries. */
export { broadcastLending, lendingState, prepareSupply, prepareWithdraw, supply, withdraw } from './execute'
export { positions, rateHistory } from './service'
