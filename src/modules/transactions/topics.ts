/**
 * The transactions module's job topic and its schedule. A leaf: the job registration
 * (jobs.ts) and the code that schedules refreshes (shared.ts) both read it without
 * importing each other.
 */
export const REFRESH_TOPIC = 'tx.refresh'

/** Status job delays: `firstMs` (TX_REFRESH_FIRST_MS, 1 s by default), doubling, at most one minute apart. */
export const refreshDelayMs = (attempt: number, firstMs = 1000) => Math.min(firstMs * 2 ** Math.max(0, attempt - 1), 60_000)
