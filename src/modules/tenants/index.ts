/**
 * The tenants module's face: the caller's tenant from a verb's context (`tenantOf`), a
 * tenant's settings, the operators' tenant rules, a tenant by id for work that names one
 * (jobs, partners' events), and the routes.
 */
export { tenantOf, tenantSettings } from './caller'
export type { TenantContext } from './caller'
export { createTenant, findTenant, operatorTenant, operatorTenantContext, operatorTenantId, settingsOf } from './service'
export { bankRampAad, cardOnrampAad, readSettings } from './settings'
export type { StoredRampEnv, StoredSettings } from './settings'
export { listTenants } from './lookups'
export type { TenantRow } from './lookups'
export { sealedColumns } from './sealed'
export { tenantPublicRoutes } from './public-routes'
export { tenantRoutes } from './routes'
export { STEP_UP_OPERATIONS, StepUpOperationSchema } from './passkey-settings'
export type { PasskeySettings } from './passkey-settings'
