/** The group's webhook event types (`agent_payments.<resource>.<change>`): src/services.ts lists them in the webhook catalogue. */
export const AGENT_PAYMENTS_EVENT_TYPES = [
  'agent_payments.agent.created', 'agent_payments.agent.updated', 'agent_payments.agent.paused', 'agent_payments.agent.resumed', 'agent_payments.agent.archived',
  'agent_payments.agent.wallet_consent_granted', 'agent_payments.agent.wallet_consent_revoked',
  'agent_payments.agent_api_key.created', 'agent_payments.agent_api_key.revoked',
  'agent_payments.policy.created', 'agent_payments.policy.updated', 'agent_payments.policy.deleted',
  'agent_payments.merchant.created', 'agent_payments.merchant.updated', 'agent_payments.merchant.disabled',
  'agent_payments.merchant_api_key.created', 'agent_payments.merchant_api_key.revoked',
  'agent_payments.shopper.created', 'agent_payments.shopper.updated', 'agent_payments.shopper.key_changed', 'agent_payments.shopper.deleted',
  'agent_payments.mandate.created', 'agent_payments.mandate.authorized', 'agent_payments.mandate.rejected', 'agent_payments.mandate.revoked',
  'agent_payments.mandate.expired', 'agent_payments.mandate.consumed', 'agent_payments.mandate.exhausted',
  'agent_payments.execution.created', 'agent_payments.execution.processing', 'agent_payments.execution.authorized', 'agent_payments.execution.succeeded', 'agent_payments.execution.failed',
  'agent_payments.execution.rejected', 'agent_payments.execution.requires_confirmation', 'agent_payments.execution.canceled', 'agent_payments.execution.expired', 'agent_payments.execution.refunded',
  'agent_payments.approval.created', 'agent_payments.approval.approved', 'agent_payments.approval.rejected', 'agent_payments.approval.expired', 'agent_payments.approval.canceled',
] as const
