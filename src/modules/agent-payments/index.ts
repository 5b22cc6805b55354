/** The agent payments module's face: its webhook event types, its jobs and its routes. */
export { AGENT_PAYMENTS_EVENT_TYPES } from './event-types'
export { registerAgentPaymentJobs } from './jobs'
export { registerMandateJobs } from './mandates/mandate-jobs'
export { agentPaymentRoutes } from './routes'
