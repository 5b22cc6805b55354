/**
 * The auth module's face: sessions other sign-in flows start and end (social, password
 * reset, a deleted user), the breached-password check, the operators' commands (bootstrap
 * admin, tenant admin) and the routes.
 */
export { revokeUserSessions, startSession } from './sessions'
export { TokenResponse } from './model'
export { breachProblem, registrationBreachCheck } from './breach-check'
export { createAdmin, createTenantAdmin, ensureBootstrapAdmin, hasAdmin } from './service'
export { authRoutes } from './routes'
