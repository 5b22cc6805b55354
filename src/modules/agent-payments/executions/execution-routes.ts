/** Routes 37-47: executions (paid on the onchain or the x402 rail), human-present confirmation and approvals. */
import { Elysia } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { lazyService } from '../../../lib/lazy'
import { J } from '../agents/agent-routes'
import { apSecurity, KEY_RATE_LIMIT, scopeOf } from '../agents/credentials'
import {
  Approval, ApprovalList, ApprovalListQuery, ApprovalParams, ApproveBody, CreateExecution, Execution, ExecutionList, ExecutionListQuery,
  ExecutionParams, Receipt, RefundBody, RejectBody,
} from './execution-model'
import { TenantQuery } from '../model'
import { prose } from '../../../http/prose'
import { stepUpGuard } from '../../../http/step-up'
import type { StepUpCheck } from '../../../context'
/** loaded with the first request that needs it (it brings the chain libraries) */
const executions = lazyService(() => import('./executions'))
const approvals = lazyService(() => import('./approvals'))

const A = `Also an agent API key (\`Authorization: Bearer sk_agent_…\`), for its own agent only (another agent's execution answers 404); ${KEY_RATE_LIMIT} requests per minute per key.`

export function executionRoutes(deps: Deps, stepUp: StepUpCheck) {
  return new Elysia({ prefix: '/v1/agent-payments', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .use(stepUpGuard(deps, stepUp))
    .post('/executions', async ({ body, caller, set }) => {
      const out = await executions.createExecution(await scopeOf(caller, body.tenantId), body)
      set.status = out.created ? 201 : 200
      return out.execution
    }, {
      apAuth: 'operatorOrAgent',
      body: CreateExecution,
      response: { 200: Execution, 201: Execution, ...errorResponses('standard', 400, 401, 403, 404, 409) },
      detail: {
        operationId: 'agentPaymentsCreateExecution',
        summary: 'An agent pays a merchant',
        description: prose`
          ${J} ${A} The policy judges the payment and reserves its amount against the limits in one write
          transaction: \`rejected\` (with \`reasons\`), \`requires_approval\` (with an approval), or
          \`processing\`; the execution counts in the windows (day, week, month in the policy's time zone) of
          the instant it is judged, and one waiting for an approval or a confirmation holds its amount there.
          The payee is judged by its address too: a merchant registered at it that is disabled
          (\`MERCHANT_DISABLED\`) or blocked by the policy (\`MERCHANT_BLOCKED\`) refuses it, named or not,
          and a payee no merchant has registered (an x402 \`payTo\` without \`merchantId\`) is paid only where
          the policy allows unregistered payees (\`allowUnregisteredPayees\`; on x402 checked on each
          requirement before signing, \`PAYEE_UNREGISTERED\` otherwise); and then the onchain rail sends
          \`currency\` (a token of the registry on \`network\`, default the merchant's \`payTo\` network,
          which must be the agent's wallet's network) from the agent's custodial wallet to the merchant's
          \`payTo\`; a job follows the send to \`succeeded\` or \`failed\`. A send refused at once (e.g.
          INSUFFICIENT_BALANCE) answers the execution \`failed\`. 201 for a new execution; 200 with the same
          execution when the tenant already has one with this \`idempotencyKey\` (nothing else compared). With
          \`mandateId\` (404 \`MANDATE_NOT_FOUND\`), the mandate is judged with the policy in the same
          transaction (a refusal is a \`rejected\` execution with the mandate's reason codes first; what its
          counted executions used counts against its budget and occurrences), and a paid execution consumes a
          cart mandate or exhausts a used-up one; under a human-present mandate an allowed payment waits in
          \`requires_confirmation\` for route 40. \`rail: x402\` (x402 protocol v2, or v1 where the resource's
          402 offers only that; \`x402.version\` says which): Slipway GETs \`resourceUrl\` (https, public
          addresses only), refuses before signing anything every payment requirement that is not scheme
          \`exact\`, on the execution's network, in its token, to the merchant's \`payTo\` (when
          \`merchantId\` is given) and to a payee the payee rule allows, at most \`amount\`, by EIP-3009 and
          valid at most AGENT_PAYMENTS_X402_MAX_AUTHORIZATION_SECONDS (\`failed\`
          \`X402_REQUIREMENTS_REFUSED\`, each refusal in \`x402.refused\`), signs the chosen
          \`transferWithAuthorization\` with the agent's custodial wallet, stores and holds it, and retries
          with the payment (\`PAYMENT-SIGNATURE\`, or \`X-PAYMENT\` in v1, whose requirements are checked
          alike: network name mapped to CAIP-2, \`maxAmountRequired\` as the amount; the settlement it
          reports, \`PAYMENT-RESPONSE\` or \`X-PAYMENT-RESPONSE\`, kept in \`x402.settlement\`): \`succeeded\`
          once the token shows the authorization used (the execution's \`amount\` becomes the price asked, the
          resource's answer is in \`x402.resource\`); a resource that does not settle leaves it \`processing\`
          until the authorization expires, then \`failed\` (or \`succeeded\` if it settled late). Codes in
          \`failureReason\`: see docs/agent-payments.md. 400 \`MERCHANT_REQUIRED\` and
          \`RESOURCE_URL_X402_ONLY\` (onchain), \`RESOURCE_URL_REQUIRED\`, \`RESOURCE_URL_REFUSED\` and
          \`RAIL_NETWORK_UNSUPPORTED\` (x402), \`NETWORK_MISMATCH\`, \`NETWORK_UNKNOWN\`,
          \`CURRENCY_NOT_ON_NETWORK\`, \`AMOUNT_PRECISION\`.`,
      },
    })
    .get('/executions', async ({ query, caller }) => executions.listExecutions(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operator',
      query: ExecutionListQuery,
      response: { 200: ExecutionList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListExecutions', summary: 'List executions', description: prose`
        ${J} Newest first; \`?status&agentId&merchantId&mandateId&shopperId\` filter (\`shopperId\`: the
        executions under its mandates).` },
    })
    .get('/executions/:executionId', async ({ params, query, caller }) => executions.getExecution(await scopeOf(caller, query.tenantId), params.executionId), {
      apAuth: 'operatorOrAgent',
      params: ExecutionParams,
      query: TenantQuery,
      response: { 200: Execution, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetExecution', summary: 'One execution, with the policy decision and its reasons', description: `${J} ${A}` },
    })
    .post('/executions/:executionId/confirm', async ({ params, query, caller }) => executions.confirmExecution(await scopeOf(caller, query.tenantId), params.executionId), {
      apAuth: 'operator',
      params: ExecutionParams,
      query: TenantQuery,
      response: { 200: Execution, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsConfirmExecution', summary: 'Human-present confirmation', description: prose`
        ${J} An execution under a human-present mandate waits in \`requires_confirmation\` (after its
        approval, when it needed one) until this call: the policy and the mandate are judged again in the
        confirming transaction, in the windows containing now (its own held amount left out), where it
        counts from then on; then \`processing\` and paid as any execution. 409
        \`CONFIRMATION_LIMIT_EXCEEDED\` (with the reasons; it keeps waiting) when it no longer passes,
        \`EXECUTION_STATE_INVALID\` from another status. An execution nobody confirms expires after
        AGENT_PAYMENTS_APPROVAL_TTL_MS.` },
    })
    .post('/executions/:executionId/cancel', async ({ params, query, caller }) => executions.cancelExecution(await scopeOf(caller, query.tenantId), params.executionId), {
      apAuth: 'operator',
      params: ExecutionParams,
      query: TenantQuery,
      response: { 200: Execution, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsCancelExecution', summary: 'Cancel an execution', description: prose`
        ${J} From \`pending\`, \`requires_approval\` or \`requires_confirmation\`; its pending approval is
        canceled with it. From another status 409 \`EXECUTION_STATE_INVALID\`.` },
    })
    .post('/executions/:executionId/refund', async ({ params, body, caller }) => executions.refundExecution(await scopeOf(caller, body.tenantId), params.executionId, body), {
      apAuth: 'operator',
      params: ExecutionParams,
      body: RefundBody,
      response: { 200: Execution, ...errorResponses('standard', 400, 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsRefundExecution', summary: 'Record a merchant-side refund', description: prose`
        ${J} No money moves here: the merchant refunded \`amount\` (default what is left). \`refunded\` when
        the whole amount is refunded, else \`partially_refunded\`; from \`succeeded\` or
        \`partially_refunded\` only (409 \`EXECUTION_STATE_INVALID\`); more than is left 400
        \`REFUND_TOO_LARGE\`. A refunded execution still counts against the limits.` },
    })
    .get('/executions/:executionId/receipt', async ({ params, query, caller }) => executions.receiptOf(await scopeOf(caller, query.tenantId), params.executionId), {
      apAuth: 'operatorOrAgent',
      params: ExecutionParams,
      query: TenantQuery,
      response: { 200: Receipt, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsExecutionReceipt', summary: 'The receipt of a paid execution', description: prose`
        ${J} ${A} With the transaction hash; 404 \`RECEIPT_NOT_READY\` until the execution is \`succeeded\`
        (or refunded).` },
    })
    .get('/approvals', async ({ query, caller }) => approvals.listApprovals(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operator',
      query: ApprovalListQuery,
      response: { 200: ApprovalList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListApprovals', summary: 'List approvals', description: `${J} Newest first; \`?status\` filters.` },
    })
    .get('/approvals/:approvalId', async ({ params, query, caller }) => approvals.getApproval(await scopeOf(caller, query.tenantId), params.approvalId), {
      apAuth: 'operator',
      params: ApprovalParams,
      query: TenantQuery,
      response: { 200: Approval, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetApproval', summary: 'One approval', description: J },
    })
    .post('/approvals/:approvalId/approve', async ({ params, body, caller }) => approvals.approve(await scopeOf(caller, body.tenantId), params.approvalId, body), {
      apAuth: 'operator',
      passkeyApproval: 'agent_execution_approval',
      params: ApprovalParams,
      body: ApproveBody,
      response: { 200: Approval, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsApprove', summary: 'Approve: the execution proceeds and pays', description: prose`
        ${J} While it waits, the execution holds its amount in the windows it was judged in. The policy
        (limits, payee) and its mandate are judged again in the approving transaction, in the windows
        containing now (past the policy's midnight, the new day's), its own held amount left out: if the
        payment no longer passes, 409 \`APPROVAL_LIMIT_EXCEEDED\` with the reasons and the approval stays
        pending, still holding; else the execution counts from now in those windows (\`processing\`) and is
        paid. Not pending: 409 \`APPROVAL_STATE_INVALID\`. With \`agent_execution_approval\` in the tenant's
        \`passkeys.stepUp.operations\`, an operator who has a passkey sends an approval for this body in
        \`Passkey-Approval\` (403 \`PASSKEY_APPROVAL_REQUIRED\` without it).` },
    })
    .post('/approvals/:approvalId/reject', async ({ params, body, caller }) => approvals.reject(await scopeOf(caller, body.tenantId), params.approvalId, body), {
      apAuth: 'operator',
      params: ApprovalParams,
      body: RejectBody,
      response: { 200: Approval, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsReject', summary: 'Reject: the execution is rejected', description: `${J} Not pending: 409 \`APPROVAL_STATE_INVALID\`.` },
    })
}
