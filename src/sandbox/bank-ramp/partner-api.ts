/**
 * The base of every partner API route group under `/v1`: `X-Api-Key` selects a simulator
 * account (`SimulatorOptions.accounts`); anything else answers 401 in the partner's shape.
 */
import { Elysia } from 'elysia'
import type { SimulatorContext } from './context'
import { partnerError } from './protocol'

export function partnerApi(ctx: SimulatorContext) {
  return new Elysia({ prefix: '/v1' })
    .resolve(({ request }) => {
      const account = ctx.opts.accounts(request.headers.get('x-api-key') ?? '')
      if (account) ctx.accountsById.set(account.id, account)
      return { account }
    })
    .onBeforeHandle(({ account }) => (account ? undefined : partnerError(401, 'Unauthorized', 'Invalid API key')))
}
