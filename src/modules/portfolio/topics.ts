/** The portfolio module's job topics and jobs (a leaf: jobs.ts and snapshots.ts import it). */
export const DAILY_TOPIC = 'portfolio.snapshot.daily'
export const TENANT_TOPIC = 'portfolio.snapshot.tenant'

export const DAY_MS = 86_400_000

/** The UTC date of a time, `YYYY-MM-DD`: a snapshot's day. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The next 00:00 UTC after `ms`. */
export const nextMidnight = (ms: number) => (Math.floor(ms / DAY_MS) + 1) * DAY_MS

/**
 * The daily run of `day`. Its id is the day: however many workers schedule it (each at its
 * start, and each run the next one), it runs once; outbox rows are kept, so never again.
 */
export const dailyJob = (day: string, runAt: number) => ({ id: `portfolio.daily:${day}`, topic: DAILY_TOPIC, tenantId: null, payload: { day }, runAt })

/** One tenant's recording of `day`, once per tenant and day. */
export const tenantJob = (tenantId: string, day: string, runAt: number) => ({ id: `portfolio.tenant:${tenantId}:${day}`, topic: TENANT_TOPIC, tenantId, payload: { day }, runAt })
