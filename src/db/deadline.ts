/**
 * When the request being served began, for the deadline of its writes (client.ts): a request that
 * writes answers within DATABASE_TIMEOUT_MS counted from its start, not from its write's, since what
 * it did before the write (its credential read, a first request's code loaded, a pull) took its share.
 * Set around requests that may write (app.ts) against a server or a replica; elsewhere (jobs, a file)
 * a write counts from its own start.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

const clock = new AsyncLocalStorage<number>()

/** Runs `fn` as a request begun now. */
export function asRequest<T>(fn: () => T): T {
  return clock.run(Date.now(), fn)
}

/** The start (epoch ms) of the request this code serves, if any. */
export function requestStart(): number | undefined {
  return clock.getStore()
}
