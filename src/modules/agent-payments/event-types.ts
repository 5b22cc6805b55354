/** The group's webhook event types (`agent_payments.<resource>.<change>`); imports nothing, so the webhooks module can list them without a cycle. */
export const AGENT_PAYMENTS_EVENT_TYPES = [
  'agent_payments.agent.created', 'agent_payments.agent.updated', 'agent_payments.agent.paused', 'agent_payments.agent.resumed', 'agent_payments.agent.archived',
  'agent_payments.agent_api_key.created', 'agent_payments.agent_api_key.revoked',
  'agent_payments.policy.created', 'agent_payments.policy.updated', 'agent_payments.policy.deleted',
  'agent_payments.merchant.created', 'agent_payments.merchant.updated', 'agent_payments.merchant.disabled',
  'agent_payments.merchant_api_key.created', 'agent_payments.merchant_api_key.revoked',
  'agent_payments.mandate.created', 'agent_payments.mandate.authorized', 'agent_payments.mandate.rejected', 'agent_payments.mandate.revoked',
  'agent_payments.mandate.expired', 'agent_payments.mandate.consumed', 'agent_payments.mandate.exhausted',
] as const
