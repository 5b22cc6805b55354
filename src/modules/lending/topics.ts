/** The lending module's job topic (a module of its own so jobs.ts loads no chain code). */
export const RATE_SAMPLE_TOPIC = 'lending.rate.sample'
/** a reserve nobody read for this long is no longer sampled by the job (reads start it again) */
export const FOLLOW_FOR_MS = 30 * 24 * 3600_000
