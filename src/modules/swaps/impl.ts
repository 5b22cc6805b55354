/** The swap verbs routes.ts loads with the first swap request, and with them the chain libraries. */
export { approve, broadcastSwap, checkAllowance, executeSwap, swapState } from './execute'
export { quoteSwap } from './quote'
export { simulateSwap } from './service'
