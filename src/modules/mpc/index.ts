/**
 * The MPC module's face: the registration's DKG (`mpcService`, loaded by the first
 * registration that needs it), its sealed columns, jobs and routes.
 */
import { lazyService } from '../../lib/lazy'

/** The MPC flows registration uses, loaded with the first call. */
export const mpcService = lazyService(() => import('./service'))
export { sealedColumns } from './sealed'
export { registerMpcJobs } from './jobs'
export { mpcRoutes } from './routes'
