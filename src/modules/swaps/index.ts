/** The swaps module's face: its routes (the verbs load with the first swap request). */
export { swapRoutes } from './routes'
