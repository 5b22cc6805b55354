/** Routes 1-10: agents and their API keys. Thin: validate, one service verb, the answer. */
import { Elysia } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { apSecurity, KEY_RATE_LIMIT, scopeOf } from './credentials'
import {
  Agent, AgentKeyParams, AgentList, AgentListQuery, AgentParams, AgentWithSpend, ApiKey, ApiKeyList, ApiKeyWithSecret,
  CreateAgent, CreateAgentKey, PageQuery, TenantQuery, UpdateAgent,
} from '../model'
import { lazyService } from '../../../lib/lazy'
import { prose } from '../../../http/prose'
import { stepUpGuard } from '../../../http/step-up'
import type { StepUpCheck } from '../../../context'
/** loaded with the first request that needs it (it brings the chain libraries) */
const agents = lazyService(() => import('./agents'))
/** loaded with the first request that needs it (it brings the chain libraries) */
const keys = lazyService(() => import('./keys'))

export const J = 'A tenantadmin of the tenant (bearer), or a platform admin naming `tenantId` (query or body); another tenant\'s ids answer 404, a plain user 403.'
const A = prose`
  Also an agent API key (\`Authorization: Bearer sk_agent_…\`), for its own agent only (another
  agent's id answers 404); a revoked key 401; ${KEY_RATE_LIMIT} requests per minute per key, beyond
  that 403 \`Rate limit exceeded\`.`

export function agentRoutes(deps: Deps, stepUp: StepUpCheck) {
  return new Elysia({ prefix: '/v1/agent-payments/agents', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .use(stepUpGuard(deps, stepUp))
    .post('', async ({ body, caller, set }) => {
      const out = await agents.createAgent(await scopeOf(caller, body.tenantId), body)
      set.status = 201
      return out
    }, {
      apAuth: 'operator',
      body: CreateAgent,
      response: { 201: Agent, ...errorResponses('standard', 401, 403, 404) },
      detail: {
        operationId: 'agentPaymentsCreateAgent',
        summary: 'Create an agent',
        description: prose`
          ${J} Status \`active\`. \`walletId\`: a custodial wallet of the tenant (404 \`WALLET_NOT_FOUND\`;
          400 \`AGENT_WALLET_NOT_CUSTODIAL\`); its network decides \`environment\`. \`policyId\`: a policy of
          the tenant (404 \`POLICY_NOT_FOUND\`). A \`publicKeyJwk\` with private members answers 400
          \`AGENT_JWK_PRIVATE\`.`,
      },
    })
    .get('', async ({ query, caller }) => agents.listAgents(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operator',
      query: AgentListQuery,
      response: { 200: AgentList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListAgents', summary: 'List agents', description: `${J} Newest first; \`?status\` filters. \`limit\` 1-200 (default 50), \`offset\`.` },
    })
    .get('/:agentId', async ({ params, query, caller }) => agents.getAgent(await scopeOf(caller, query.tenantId), params.agentId), {
      apAuth: 'operatorOrAgent',
      params: AgentParams,
      query: TenantQuery,
      response: { 200: AgentWithSpend, ...errorResponses('standard', 401, 403, 404) },
      detail: {
        operationId: 'agentPaymentsGetAgent',
        summary: 'One agent, with its spend per limit window',
        description: prose`
          ${J} ${A} \`spend\`: per limit of its policy, what was spent in the window containing now (local
          days, weeks from Monday and calendar months in the policy's time zone). What counts: the amounts of
          its executions \`processing\`, \`succeeded\`, \`refunded\` or \`partially_refunded\` created in the
          window.`,
      },
    })
    .patch('/:agentId', async ({ params, query, body, caller }) => agents.updateAgent(await scopeOf(caller, query.tenantId), params.agentId, body), {
      apAuth: 'operator',
      params: AgentParams,
      query: TenantQuery,
      body: UpdateAgent,
      response: { 200: Agent, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsUpdateAgent', summary: 'Change an agent', description: prose`
        ${J} name, description, walletId, policyId (null: none), metadata (replaced whole). An archived
        agent answers 409 \`AGENT_ARCHIVED\`.` },
    })
    .delete('/:agentId', async ({ params, query, caller }) => agents.archiveAgent(await scopeOf(caller, query.tenantId), params.agentId), {
      apAuth: 'operator',
      params: AgentParams,
      query: TenantQuery,
      response: { 200: Agent, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsArchiveAgent', summary: 'Archive an agent', description: prose`
        ${J} Final: its API keys are revoked in the same step and executions will be refused. An archived
        agent answers as it is.` },
    })
    .post('/:agentId/pause', async ({ params, query, caller }) => agents.setAgentStatus(await scopeOf(caller, query.tenantId), params.agentId, 'paused'), {
      apAuth: 'operator',
      params: AgentParams,
      query: TenantQuery,
      response: { 200: Agent, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsPauseAgent', summary: 'Pause an agent', description: `${J} \`active → paused\`; from another status 409 \`AGENT_STATE_INVALID\`.` },
    })
    .post('/:agentId/resume', async ({ params, query, caller }) => agents.setAgentStatus(await scopeOf(caller, query.tenantId), params.agentId, 'active'), {
      apAuth: 'operator',
      params: AgentParams,
      query: TenantQuery,
      response: { 200: Agent, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsResumeAgent', summary: 'Resume a paused agent', description: `${J} \`paused → active\`; from another status 409 \`AGENT_STATE_INVALID\`.` },
    })
    .post('/:agentId/api-keys', async ({ params, body, caller, set }) => {
      const out = await keys.createKey(await scopeOf(caller, body.tenantId), 'agent', params.agentId, body)
      set.status = 201
      return out
    }, {
      apAuth: 'operator',
      passkeyApproval: 'agent_api_key',
      params: AgentParams,
      body: CreateAgentKey,
      response: { 201: ApiKeyWithSecret, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsCreateAgentKey', summary: 'Create an agent API key', description: prose`
        ${J} Answers the key (\`sk_agent_…\`) once: only its SHA-256 is kept. An archived agent answers 409
        \`AGENT_ARCHIVED\`. With \`agent_api_key\` in the tenant's \`passkeys.stepUp.operations\`, an operator
        who has a passkey sends an approval for this body in \`Passkey-Approval\` (403
        \`PASSKEY_APPROVAL_REQUIRED\` without it).` },
    })
    .get('/:agentId/api-keys', async ({ params, query, caller }) => keys.listKeys(await scopeOf(caller, query.tenantId), 'agent', params.agentId, query), {
      apAuth: 'operator',
      params: AgentParams,
      query: PageQuery,
      response: { 200: ApiKeyList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListAgentKeys', summary: 'List an agent\'s API keys', description: `${J} Revoked keys included; never the key itself.` },
    })
    .delete('/:agentId/api-keys/:keyId', async ({ params, query, caller }) => keys.revokeKey(await scopeOf(caller, query.tenantId), 'agent', params.agentId, params.keyId), {
      apAuth: 'operator',
      params: AgentKeyParams,
      query: TenantQuery,
      response: { 200: ApiKey, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsRevokeAgentKey', summary: 'Revoke an agent API key', description: `${J} At once: its next request answers 401. A revoked key answers as it is.` },
    })
}
