/** The sandbox faucet's face: its route (mounted only where sandboxes run). */
export { faucetRoutes } from './routes'
