/** The bank ramp module's face: its movements in the unified feed, the webhook event types it publishes, the sandbox reset's reads, its sealed columns, jobs and routes. */
export { RAMP_EVENT_TYPES } from './event-types'
export { rampFeedSource } from './feed'
export { deleteUserRecords, findCustomer, unfinishedPayouts } from './lookups'
export { sealedColumns } from './sealed'
export { registerRampJobs } from './jobs'
export { rampRoutes } from './routes'
