/**
 * The transactions module's job topic and its schedule. A leaf: the job registration
 * (jobs.ts) and the code that schedules refreshes (shared.ts) both read it without
 * importing each other.
 */
export const REFRESH_TOPIC = 'tx.refresh'

/** Status job delays: 1 s, doubling, at most one minute apart. */
export const refreshDelayMs = (attempt: number) => Math.min(1000 * 2 ** Math.max(0, attempt - 1), 60_000)
