import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { wallets } from './handle'
import { UserWalletsQuery, Wallet } from './model'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  getUserWallets: prose`
    A user reads its own; an operator reads its tenant's users' (a platform admin names
    \`tenantId\`). Anyone else's id answers 404.`,
}

/** `GET /v1/users/{id}/wallets`: same visibility as `GET /v1/users/{id}`. */
export function userWalletRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/users', detail: { tags: ['Users'] } })
    .use(security(deps))
    .get('/:id/wallets', async ({ params, query, ctx }) => wallets.userWallets(ctx, params.id, query.tenantId), {
      auth: 'any',
      params: t.Object({ id: t.String({ maxLength: 64 }) }),
      query: UserWalletsQuery,
      response: { 200: t.Object({ data: t.Array(Wallet) }), ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'getUserWallets', summary: 'A user\'s wallets', description: descriptions.getUserWallets },
    })
}
