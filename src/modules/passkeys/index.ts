/**
 * The passkeys module's face: the step-up guard other modules put on the routes that can empty a
 * wallet (`passkeyGuard`, option `passkeyApproval`), and the routes.
 */
export { passkeyGuard } from './guard'
export type { GuardedBy, PasskeyApprovalOption } from './guard'
export { APPROVAL_HEADER } from './step-up'
export { passkeyRoutes } from './routes'
