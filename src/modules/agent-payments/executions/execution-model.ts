/** Request and answer shapes of executions and approvals (routes 37-47), the x402 rail's record among them. */
import { t } from 'elysia'
import { integer } from '../../../http/integer'
import { Limit, Offset } from '../../../http/schemas'
import { Amount, Currency, ENVIRONMENT_NOTE, list, MaybeWhen, Network, TenantIdField, Uuid, When } from '../model'
import { prose } from '../../../http/prose'

// executions and approvals (routes 37-39, 41-47)

const ExecutionStatus = t.Union([
  t.Literal('pending'), t.Literal('rejected'), t.Literal('requires_approval'),
  t.Literal('requires_confirmation'), t.Literal('processing'), t.Literal('succeeded'),
  t.Literal('failed'), t.Literal('canceled'), t.Literal('expired'), t.Literal('refunded'),
  t.Literal('partially_refunded'),
])
const ApprovalStatus = t.Union([t.Literal('pending'), t.Literal('approved'), t.Literal('rejected'), t.Literal('expired'), t.Literal('canceled')])
const Reasons = t.Array(t.Object({ code: t.String(), message: t.String(), interval: t.Optional(t.String()) }))

export const CreateExecution = t.Object({
  tenantId: TenantIdField,
  agentId: t.String({ format: 'uuid', description: 'an agent of the tenant; with an agent key, its own agent' }),
  merchantId: t.Optional(t.String({ format: 'uuid', description: prose`
    required on the onchain rail: paid at its \`payTo\`; on the x402 rail, optional: when named, the
    resource must ask to be paid at its \`payTo\`; when not, the \`payTo\` asked is judged by the payee
    rule (a disabled or blocked merchant registered at it refuses it; an unregistered one only with the
    policy's \`allowUnregisteredPayees\`)` })),
  mandateId: t.Optional(t.String({ format: 'uuid', description: 'an active mandate of the tenant the payment is made under; judged with the policy (404 `MANDATE_NOT_FOUND`)' })),
  amount: Amount('the payment'),
  currency: Currency,
  rail: t.Union([t.Literal('onchain'), t.Literal('x402')], { description: prose`
    \`onchain\`: a send to the merchant's \`payTo\`; \`x402\`: Slipway fetches \`resourceUrl\` and pays
    what its \`402 Payment Required\` asks, at most \`amount\`` }),
  network: t.Optional(Network),
  resourceUrl: t.Optional(t.String({ maxLength: 2048, description: prose`
    the x402 rail (required there, refused on onchain): the paid resource, fetched with GET; an
    \`https://\` address on port 443 with a public DNS name, resolved to public addresses at each
    request (the rules of webhook addresses). 400 \`RESOURCE_URL_REFUSED\` with \`details.reason\`` })),
  description: t.Optional(t.String({ maxLength: 500 })),
  idempotencyKey: t.Optional(t.String({ minLength: 1, maxLength: 255, description: 'when the tenant already has an execution with this key, it is answered unchanged (200), nothing else compared' })),
}, {
  additionalProperties: false,
  examples: [{ agentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', merchantId: '3fa85f64-5717-4562-b3fc-2c963f66afa6', amount: '12.50', currency: 'USDC', rail: 'onchain', idempotencyKey: 'order-1042' }],
})
export type CreateExecution = typeof CreateExecution.static

const Requirement = {
  scheme: t.String(), network: t.String({ description: prose`
    CAIP-2 (\`eip155:84532\`), also for a version 1 requirement (its name, \`base-sepolia\`, mapped)` }), asset: t.String({ description: 'the token\'s address' }), payTo: t.String(),
  amount: t.String({ pattern: '^[0-9]+$', description: 'in the token\'s smallest unit (version 1\'s `maxAmountRequired`)' }),
}
const X402 = t.Object({
  version: t.Union([t.Literal(2), t.Literal(1), t.Null()], { description: prose`
    the x402 version the resource's 402 was read and paid in: 2 (\`PAYMENT-REQUIRED\`,
    \`PAYMENT-SIGNATURE\`, \`PAYMENT-RESPONSE\`), or 1 where the resource offers only that (requirements
    in the 402's body, \`X-PAYMENT\`, \`X-PAYMENT-RESPONSE\`); null when no 402 was read` }),
  requirement: t.Union([t.Object({ ...Requirement, maxTimeoutSeconds: integer() }), t.Null()], { description: 'the payment requirement chosen and paid' }),
  refused: t.Array(t.Object({ ...Requirement, reasons: t.Array(t.String()) }), { description: 'the requirements refused before anything was signed, with why' }),
  authorization: t.Union([t.Object({
    from: t.String(), to: t.String(), value: t.String({ pattern: '^[0-9]+$' }), validAfter: t.String({ pattern: '^[0-9]+$' }), validBefore: t.String({ pattern: '^[0-9]+$', description: prose`
      Unix seconds: until then the payee can settle it` }),
    nonce: t.String(),
  }), t.Null()], { description: 'the EIP-3009 transferWithAuthorization signed with the agent\'s wallet (its signature is not kept)' }),
  settlement: t.Union([t.Object({
    success: t.Boolean(), transaction: t.Union([t.String(), t.Null()]), network: t.Union([t.String(), t.Null()]), payer: t.Union([t.String(), t.Null()]),
    errorReason: t.Union([t.String(), t.Null()]), source: t.Union([t.Literal('resource'), t.Literal('chain')], { description: prose`
      \`resource\`: its PAYMENT-RESPONSE header (X-PAYMENT-RESPONSE in version 1; \`network\` as CAIP-2);
      \`chain\`: read from the token` }),
  }), t.Null()]),
  resource: t.Union([t.Object({
    status: integer(), contentType: t.Union([t.String(), t.Null()]), size: integer({ description: 'bytes' }), truncated: t.Boolean({ description: prose`
      kept up to AGENT_PAYMENTS_X402_MAX_BODY_BYTES` }),
    body: t.Union([t.String(), t.Null()], { description: 'the answer as text, when its type is textual' }), bodyBase64: t.Union([t.String(), t.Null()], { description: 'otherwise, base64' }),
  }), t.Null()], { description: 'the resource\'s last answer' }),
}, { title: 'AgentPaymentsX402' })

export const Execution = t.Object({
  id: Uuid, agentId: Uuid, merchantId: t.Union([Uuid, t.Null()]), mandateId: t.Union([Uuid, t.Null()]),
  amount: Amount('the payment'), currency: t.String(), rail: t.String(), network: t.Union([t.String(), t.Null()]), payToAddress: t.Union([t.String(), t.Null()]),
  description: t.Union([t.String(), t.Null()]), idempotencyKey: t.Union([t.String(), t.Null()]), environment: t.String({ description: ENVIRONMENT_NOTE }),
  status: ExecutionStatus,
  decision: t.Union([t.Literal('allow'), t.Literal('require_approval'), t.Literal('deny')]),
  reasons: t.Array(t.Object({ code: t.String(), message: t.String(), interval: t.Optional(t.String()) }), { description: 'the policy\'s deny or approval reasons' }),
  policyId: t.Union([Uuid, t.Null()]), policyVersion: t.Union([integer(), t.Null()]),
  transactionId: t.Union([t.String(), t.Null()]), txHash: t.Union([t.String(), t.Null()]),
  failureReason: t.Union([t.String(), t.Null()], { description: '`CODE: message`; on the x402 rail also while an unsettled payment waits for its authorization to expire' }),
  resourceUrl: t.Union([t.String(), t.Null()]), x402: t.Union([X402, t.Null()], { description: 'the x402 rail\'s record; null on onchain' }),
  refundedAmount: Amount('what the merchant refunded ("0" before a refund)'), createdAt: When, updatedAt: When, completedAt: MaybeWhen,
}, { title: 'AgentPaymentsExecution' })
export const ExecutionList = list(Execution, 'AgentPaymentsExecutionList')
export const ExecutionParams = t.Object({ executionId: Uuid })
export const ExecutionListQuery = t.Object({
  tenantId: TenantIdField,
  status: t.Optional(ExecutionStatus),
  agentId: t.Optional(Uuid),
  merchantId: t.Optional(Uuid),
  mandateId: t.Optional(Uuid),
  shopperId: t.Optional(Uuid),
  limit: t.Optional(Limit(200, 50)),
  offset: t.Optional(Offset),
})
export type ExecutionListQuery = typeof ExecutionListQuery.static
export const RefundBody = t.Object({ tenantId: TenantIdField, amount: t.Optional(Amount('the refund; default what is left')) }, { additionalProperties: false, examples: [{ amount: '5.00' }] })
export const Receipt = t.Object({
  executionId: Uuid, agentId: Uuid, merchantId: t.Union([Uuid, t.Null()]), amount: Amount('the payment'), currency: t.String(), rail: t.String(),
  network: t.String(), to: t.String({ description: 'the address paid: the merchant\'s payTo, or the x402 requirement\'s' }),
  transactionId: t.Union([t.String(), t.Null()], { description: 'the send (onchain rail); null on x402, where the facilitator sent the transaction' }),
  txHash: t.String({ description: 'the transaction that moved the money' }), status: ExecutionStatus,
  refundedAmount: Amount('what the merchant refunded'), policyId: t.Union([Uuid, t.Null()]), policyVersion: t.Union([integer(), t.Null()]), paidAt: When,
  x402: t.Union([t.Object({
    resourceUrl: t.String(), network: t.String({ description: 'CAIP-2' }), transaction: t.String(), payer: t.String(), payTo: t.String(), asset: t.String(),
    amount: t.String({ pattern: '^[0-9]+$', description: 'in the token\'s smallest unit' }), nonce: t.String({ description: 'the EIP-3009 authorization\'s nonce' }),
    settledBy: t.Union([t.Literal('resource'), t.Literal('chain')]),
  }), t.Null()], { description: 'the x402 settlement; null on onchain' }),
}, { title: 'AgentPaymentsReceipt' })

export const Approval = t.Object({
  id: Uuid, executionId: Uuid, agentId: Uuid, status: ApprovalStatus, reasons: Reasons, note: t.Union([t.String(), t.Null()]),
  decidedBy: t.Union([t.String(), t.Null()]), expiresAt: When, createdAt: When, decidedAt: MaybeWhen,
}, { title: 'AgentPaymentsApproval' })
export const ApprovalList = list(Approval, 'AgentPaymentsApprovalList')
export const ApprovalParams = t.Object({ approvalId: Uuid })
export const ApprovalListQuery = t.Object({ tenantId: TenantIdField, status: t.Optional(ApprovalStatus), limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset) })
export const ApproveBody = t.Object({ tenantId: TenantIdField, note: t.Optional(t.String({ maxLength: 500 })) }, { additionalProperties: false, examples: [{ note: 'booked with the client' }] })
export const RejectBody = t.Object({ tenantId: TenantIdField, reason: t.Optional(t.String({ maxLength: 500 })) }, { additionalProperties: false, examples: [{ reason: 'not this hotel' }] })
