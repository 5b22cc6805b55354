import { lazy } from '../../lib/lazy'

/**
 * The wallet services, loaded with the chain libraries by the first call and shared
 * after: `(await wallets()).createWallet(ctx, body)`. Routes and the registration
 * collaborators reach the services only through this handle, so importing the routes
 * loads no chain library.
 */
export const wallets = lazy(() => import('./impl'))
