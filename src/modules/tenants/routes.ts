import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { rejectUnknownProperties } from '../../http/request-state'
import { errorResponses, LimitOffsetQuery, OffsetPagination, page } from '../../http/schemas'
import { security } from '../../http/security'
import { ActivityEntry, ApiCredentials, CreateTenant, Tenant, TenantId, TenantWithSecret, UpdateTenant } from './model'
import * as tenantsService from './service'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  updateTenant: prose`
    Takes any subset of the settings, at the top level or under \`settings\`, and deep-merges it.
    \`apiKey\` and \`webhookKey\` of the bank ramp are write-only: answers show
    \`apiKeySet\`/\`webhookKeySet\`. A \`null\` RPC address removes the override. \`status\` and
    turning \`agentPayments.tenantManagesUserWallets\` on are a platform admin's (a tenantadmin gets
    403, the latter with \`code: SETTING_PLATFORM_ADMIN_ONLY\`).`,
}

export function tenantRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/admin/tenants', detail: { tags: ['Tenants'] } })
    .use(security(deps))
    .post('/', ({ body, ctx, set }) => {
      set.status = 201
      return tenantsService.createTenant(ctx, body)
    }, {
      auth: 'admin',
      body: CreateTenant,
      response: { 201: TenantWithSecret, ...errorResponses('standard', 400, 401, 403) },
      detail: { operationId: 'createTenant', summary: 'Create a tenant (platform admin)', description: 'Answers 201 with the tenant, its `apiKey` and its `apiSecret`.' },
    })
    .get('/', async ({ query, ctx }) => {
      const limit = query.limit ?? 50
      const offset = query.offset ?? 0
      const { rows, total } = await tenantsService.listTenants(ctx, limit, offset)
      return page(rows, total, limit, offset)
    }, {
      auth: 'operator',
      query: LimitOffsetQuery,
      response: { 200: t.Object({ data: t.Array(Tenant), pagination: OffsetPagination }), ...errorResponses('standard', 400, 401, 403) },
      detail: { operationId: 'listTenants', summary: 'List tenants', description: 'A platform admin sees every tenant; a tenantadmin sees its own.' },
    })
    .get('/:id', ({ params, ctx }) => tenantsService.getTenant(ctx, params.id), {
      auth: 'operator',
      params: TenantId,
      response: { 200: Tenant, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'getTenant', summary: 'Read a tenant and its settings' },
    })
    .patch('/:id', ({ params, body, ctx, request }) => {
      rejectUnknownProperties(UpdateTenant, request)
      return tenantsService.updateTenant(ctx, params.id, body)
    }, {
      auth: 'operator',
      params: TenantId,
      body: UpdateTenant,
      response: { 200: Tenant, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: {
        operationId: 'updateTenant',
        summary: 'Change a tenant\'s settings',
        description: descriptions.updateTenant,
      },
    })
    .get('/:id/api-secret', ({ params, ctx }) => tenantsService.readApiSecret(ctx, params.id), {
      auth: 'operator',
      params: TenantId,
      response: { 200: ApiCredentials, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'getTenantApiSecret', summary: 'Read the tenant\'s API secret', description: 'The read is written to the tenant\'s activity log.' },
    })
    .post('/:id/rotate-secret', ({ params, ctx }) => tenantsService.rotateApiSecret(ctx, params.id), {
      auth: 'operator',
      params: TenantId,
      response: { 200: ApiCredentials, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'rotateTenantApiSecret', summary: 'Replace the tenant\'s API secret', description: 'The old secret stops working immediately, in every API process.' },
    })
    .get('/:id/activity', async ({ params, query, ctx }) => {
      const limit = query.limit ?? 50
      const offset = query.offset ?? 0
      const { rows, total } = await tenantsService.tenantActivity(ctx, params.id, limit, offset)
      return page(rows, total, limit, offset)
    }, {
      auth: 'operator',
      params: TenantId,
      query: LimitOffsetQuery,
      response: { 200: t.Object({ data: t.Array(ActivityEntry), pagination: OffsetPagination }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'listTenantActivity', summary: 'The tenant\'s activity log', description: 'Operator actions on the tenant, newest first: who, what, when. Never a secret.' },
    })
}
