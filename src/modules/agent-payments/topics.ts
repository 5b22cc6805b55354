/** The group's job topics; imports nothing, so jobs.ts registers them without loading the services. */
export const EXECUTION_FOLLOW_TOPIC = 'agent_payments.execution.follow'
export const APPROVAL_EXPIRE_TOPIC = 'agent_payments.approval.expire'
export const CONFIRMATION_EXPIRE_TOPIC = 'agent_payments.confirmation.expire'
export const X402_SETTLE_TOPIC = 'agent_payments.x402.settle'
export const EXECUTION_WATCH_TOPIC = 'agent_payments.execution.watch'
