import { lazyService } from '../../lib/lazy'

/**
 * The wallet services behind one handle, loaded with the chain libraries by the first
 * verb called and shared after: `wallets.createWallet(ctx, body)`. Routes and the
 * registration collaborators reach the services only through it, so importing the
 * routes loads no chain library.
 */
export const wallets = lazyService(() => import('./impl'))
