/** Routes 11-16: policies and their simulation. */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { J } from '../agents/agent-routes'
import { apSecurity, scopeOf } from '../agents/credentials'
import { PageQuery, PolicyParams, TenantQuery } from '../model'
import { CreatePolicy, Policy, PolicyList, SimulateBody, Simulation, UpdatePolicy } from './policy-model'
import { lazyService } from '../../../lib/lazy'
import { prose } from '../../../http/prose'
/** loaded with the first request that needs it (it brings the chain libraries) */
const policies = lazyService(() => import('./policies'))

const CHECKS = prose`
  Refused with 400 \`POLICY_INVALID\`: an interval given twice, a limit of 0, \`approvalThreshold\`
  without \`approvalMode: threshold\` or the reverse, an unknown network or time zone,
  \`activeHours.end\` not after \`start\`, a merchant both allowed and blocked, or a merchant id that
  is not the tenant's.`

export function policyRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/agent-payments/policies', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .post('', async ({ body, caller, set }) => {
      const out = await policies.createPolicy(await scopeOf(caller, body.tenantId), body)
      set.status = 201
      return out
    }, {
      apAuth: 'operator',
      body: CreatePolicy,
      response: { 201: Policy, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsCreatePolicy', summary: 'Create a policy', description: prose`
        ${J} \`version\` 1. ${CHECKS} How a payment is judged: docs/agent-payments.md, "Policy evaluation".` },
    })
    .get('', async ({ query, caller }) => policies.listPolicies(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operator',
      query: PageQuery,
      response: { 200: PolicyList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListPolicies', summary: 'List policies', description: `${J} Newest first; deleted ones left out.` },
    })
    .get('/:policyId', async ({ params, query, caller }) => policies.getPolicy(await scopeOf(caller, query.tenantId), params.policyId), {
      apAuth: 'operator',
      params: PolicyParams,
      query: TenantQuery,
      response: { 200: Policy, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetPolicy', summary: 'One policy, with its version', description: J },
    })
    .patch('/:policyId', async ({ params, query, body, caller }) => policies.updatePolicy(await scopeOf(caller, query.tenantId), params.policyId, body), {
      apAuth: 'operator',
      params: PolicyParams,
      query: TenantQuery,
      body: UpdatePolicy,
      response: { 200: Policy, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsUpdatePolicy', summary: 'Change a policy', description: prose`
        ${J} Fields left out keep their values; \`null\` clears an optional one. A change makes \`version\`
        + 1 (executions record the version that judged them); a patch that changes nothing leaves it.
        Changing \`approvalMode\` away from \`threshold\` drops \`approvalThreshold\`. ${CHECKS}` },
    })
    .delete('/:policyId', async ({ params, query, caller, set }) => {
      await policies.deletePolicy(await scopeOf(caller, query.tenantId), params.policyId)
      set.status = 204
    }, {
      apAuth: 'operator',
      params: PolicyParams,
      query: TenantQuery,
      response: { 204: t.Void({ description: 'Deleted' }), ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsDeletePolicy', summary: 'Delete a policy', description: `${J} 409 \`POLICY_IN_USE\` while an agent that is not archived uses it.` },
    })
    .post('/:policyId/simulate', async ({ params, body, caller }) => policies.simulate(await scopeOf(caller, body.tenantId), params.policyId, body), {
      apAuth: 'operator',
      params: PolicyParams,
      body: SimulateBody,
      response: { 200: Simulation, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsSimulatePolicy', summary: 'What the policy would decide about a payment', description: prose`
        ${J} Judges the payment now with this policy, the agent's and merchant's current state and what the
        agent spent in each window (nothing until executions exist); nothing is stored. \`decision\`:
        \`allow\`, \`require_approval\` or \`deny\`; \`reasons\` lists every deny reason (codes in
        docs/agent-payments.md), or the approval reason. An unknown agent or merchant answers 404.` },
    })
}
