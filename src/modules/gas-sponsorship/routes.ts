/**
 * Gas sponsorship routes: the tenant admin's gas policies and usage, the user's own usage, and
 * the ERC-7677 paymaster service (JSON-RPC) for wallets whose keys the app holds.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { rejectUnknownProperties } from '../../http/request-state'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import { GasPolicies, GasPolicy, GasPolicyBody, GasUsage, JsonRpcRequest, JsonRpcResponse, NetworkParam, PolicyParams, TenantIdParam, UsageQuery } from './model'
import * as admin from './service'

/** the ERC-7677 service loads viem with its first request */
const rpc = lazyService(() => import('./erc7677'))

const descriptions = {
  putGasPolicy: prose`
    Sets the tenant's gas policy on one EVM network (its registry id: \`ethereum\`, \`sepolia\`,
    \`base\`...): on or off; the most sponsored per user per UTC day, per tenant per UTC month and
    per operation, in wei of the native coin (null: no limit; a field left out keeps its value);
    the kinds sponsored (\`send\`, \`swap\`, \`lending\`, \`payout\`, \`agent\`, \`dapp\`) and, for dApp
    calls, the contracts and selectors. An operation counts its maximum cost (every gas limit ×
    max fee) while in flight and what it cost once mined, checked in the write that records it,
    so concurrent operations never pass a limit together. \`sponsorshipAvailable\` says whether
    this deployment has a bundler, a paymaster and its signer for the network. 400
    \`GAS_POLICY_INVALID\` for a network that is not an EVM network of the registry.`,
  gasUsage: prose`
    Gas sponsored today and this month (UTC) per network, for the tenant or, with \`userId\`, one of
    its users (another tenant's user answers 404).`,
  paymasterRpc: prose`
    ERC-7677 paymaster web service (JSON-RPC 2.0) with the user's bearer token:
    \`pm_getPaymasterStubData\` and \`pm_getPaymasterData\` with \`[userOperation, entryPoint,
    chainId, context]\`, for EntryPoint v0.8 and an EOA delegated (EIP-7702) to
    Simple7702Account: use it as viem's \`createPaymasterClient({ transport: http(url, { fetchOptions:
    { headers: { authorization: 'Bearer …' } } }) })\`. The sender must be one of the signed-in
    user's wallets on the network, its calls (\`execute\`/\`executeBatch\`) a kind the tenant's policy
    sponsors (ERC-20 transfers and plain value are \`send\`, anything else \`dapp\` and must be on the
    allowlist), its maximum cost within the policy's limits; the signature is bound to the
    operation, the chain, the paymaster and PAYMASTER_VALIDITY_SECONDS. A signed operation counts
    its maximum cost until a job finds its receipt at the bundler (then what it cost) or, once the
    signature expired unused, releases it (then nothing). Refusals are JSON-RPC
    errors (HTTP 200) whose \`data\` has the status and the code: \`GAS_POLICY_OFF\`,
    \`GAS_OPERATION_NOT_SPONSORED\`, \`GAS_SENDER_NOT_ALLOWED\`, \`GAS_COST_ABOVE_LIMIT\`,
    \`GAS_USER_DAILY_LIMIT\`, \`GAS_TENANT_MONTHLY_BUDGET\`, \`PAYMASTER_DEPOSIT_LOW\`,
    \`GAS_SPONSORSHIP_NOT_CONFIGURED\`.`,
}

export function gasSponsorshipRoutes(deps: Deps) {
  return new Elysia({ detail: { tags: ['Gas sponsorship'] } })
    .use(security(deps))
    .get('/v1/admin/tenants/:id/gas-policies', ({ params, ctx }) => admin.listGasPolicies(ctx, params.id), {
      auth: 'operator',
      params: TenantIdParam,
      response: { 200: GasPolicies, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'listGasPolicies', summary: 'The tenant\'s gas policies, per network' },
    })
    .put('/v1/admin/tenants/:id/gas-policies/:network', ({ params, body, ctx, request }) => {
      rejectUnknownProperties(GasPolicyBody, request)
      return admin.putGasPolicy(ctx, params.id, params.network, body)
    }, {
      auth: 'operator',
      params: PolicyParams,
      body: GasPolicyBody,
      response: { 200: GasPolicy, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'putGasPolicy', summary: 'Set the tenant\'s gas policy on a network', description: descriptions.putGasPolicy },
    })
    .get('/v1/admin/tenants/:id/gas-usage', ({ params, query, ctx }) => admin.tenantGasUsage(ctx, params.id, query.userId), {
      auth: 'operator',
      params: TenantIdParam,
      query: UsageQuery,
      response: { 200: GasUsage, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'tenantGasUsage', summary: 'Gas sponsored for the tenant or one of its users', description: descriptions.gasUsage },
    })
    .get('/v1/gas-sponsorship/usage', ({ ctx }) => admin.myGasUsage(ctx), {
      auth: 'any',
      response: { 200: GasUsage, ...errorResponses('standard', 401, 403) },
      detail: { operationId: 'myGasUsage', summary: 'Gas sponsored for the signed-in user today and this month' },
    })
    .post('/v1/gas-sponsorship/:network/rpc', ({ params, body, ctx }) => rpc.paymasterRpc(ctx, params.network, body), {
      auth: 'any',
      rateLimit: { max: 120, windowSeconds: 60 },
      params: NetworkParam,
      body: JsonRpcRequest,
      response: { 200: JsonRpcResponse, ...errorResponses('standard', 400, 401, 403, 429) },
      detail: { operationId: 'paymasterRpc', summary: 'ERC-7677 paymaster service (pm_getPaymasterStubData, pm_getPaymasterData)', description: descriptions.paymasterRpc },
    })
}
