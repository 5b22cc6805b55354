/**
 * The passkeys module's face: the step-up check src/services.ts hands to the routes that can empty
 * a wallet (`requireApproval`, a `StepUpCheck`), and the routes.
 */
export { requireApproval } from './step-up'
export { passkeyRoutes } from './routes'
