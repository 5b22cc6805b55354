/**
 * A module (or anything costly) loaded on its first use and shared after. The chain
 * libraries (viem, @solana/web3.js), nodemailer, the transaction job code, the argon2 addon,
 * the QR encoder and bull-board are loaded this way, so a process that never serves the
 * route that needs one never holds it in memory. A load that fails is retried on the next
 * call rather than cached.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= load().catch((err) => {
      pending = undefined
      throw err
    })
    return pending
  }
}

/** The verbs of a lazily loaded service module: each answers a promise, loading the module on the first call. */
export type LazyService<M> = {
  [K in keyof M as M[K] extends (...args: never[]) => unknown ? K : never]: M[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never
}

/**
 * A module's service verbs behind one handle, the module loaded (once, with `lazy`) by
 * the first verb called: routes write `service.createTransaction(ctx, body)` while the
 * service and what it imports (the chain libraries) stay unloaded until a request needs them.
 */
export function lazyService<M extends object>(load: () => Promise<M>): LazyService<M> {
  const get = lazy(load)
  const verbs = new Map<string, (...args: unknown[]) => Promise<unknown>>()
  return new Proxy({} as LazyService<M>, {
    get(_, name) {
      // Not a thenable, and no symbol keys: only verb names resolve to a function.
      if (typeof name !== 'string' || name === 'then') return undefined
      let verb = verbs.get(name)
      if (!verb) {
        verb = async (...args) => {
          const fn = (await get() as Record<string, unknown>)[name]
          if (typeof fn !== 'function') throw new TypeError(`the lazily loaded service has no verb ${name}`)
          return fn(...args)
        }
        verbs.set(name, verb)
      }
      return verb
    },
  })
}
