/**
 * What other modules read of tenants beyond one by id (`findTenant`): the platform's
 * tenants page by page. Rows come back as the tenants table holds them; their settings
 * are read through `settingsOf`.
 */
import * as repo from './repo'

export type { TenantRow } from './repo'

/** The platform's tenants, a page at a time (the portfolio snapshot job walks them). */
export const listTenants: typeof repo.listTenants = (...args) => repo.listTenants(...args)
