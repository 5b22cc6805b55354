/**
 * The bank ramp sandbox simulator: a small app that speaks the partner's protocol
 * (src/adapters/bank-ramp/port.ts) so a self-hoster can run the whole flow on one machine,
 * and tests can drive the real adapter over HTTP. Its parts:
 *
 * - protocol.ts: answer shapes, amounts, channels and the SEPA form (pure);
 * - state.ts and context.ts: the in-memory state, webhooks posted to the account, background work;
 * - persistence.ts: the state saved and loaded back across restarts, when a persistence is given
 *   (repo.ts: Slipway's database, for the embedded simulator);
 * - partner-api.ts: `X-Api-Key` selects a simulator account (`accounts`); anything else answers 401;
 * - hosted-pages.ts: the identity check a customer's browser opens;
 * - customers.ts: `POST /v1/onboarding/{CustomerID}` answers a hosted page address, customers, proven addresses;
 * - payins.ts: virtual IBANs and the simulated bank transfer (`POST /v1/sandbox/fiat-deposit/simulate`),
 *   worked through by deposit-run.ts, durably: resumed after a restart (`resume`);
 * - payouts.ts: sell channels, forms, prepared sells and the sell.
 *
 * Without a persistence, state lives in memory only and a restart forgets the simulator's customers.
 */
import { Elysia } from 'elysia'
import { createSimulatorContext, type SimulatorOptions } from './context'
import { customerRoutes } from './customers'
import { depositRunner } from './deposit-run'
import { hostedPages } from './hosted-pages'
import { payinRoutes } from './payins'
import { payoutRoutes } from './payouts'
import { json, partnerError } from './protocol'
import { stateSizes } from './state'

export type { SimulatorAccount, SimulatorOptions } from './context'

export function createBankRampSimulator(opts: SimulatorOptions) {
  const ctx = createSimulatorContext(opts)
  const runner = depositRunner(ctx)
  const apiPrefix = `${opts.basePath ?? ''}/v1/`
  const app = new Elysia({ prefix: opts.basePath ?? '' })
    // Unknown paths answer JSON like the rest: the partner's error shape under /v1 (what a
    // partner client parses), Slipway's own 404 envelope for the hosted pages' side.
    .onError(({ code, request }) => {
      if (code !== 'NOT_FOUND') return
      const path = new URL(request.url).pathname
      if (path.startsWith(apiPrefix)) return partnerError(404, 'ResourceNotFound', `No route ${request.method} ${path}`)
      return json({ statusCode: 404, error: 'Not Found', message: `Route ${request.method}:${path} not found` }, 404)
    })
    .use(hostedPages(ctx))
    .use(customerRoutes(ctx))
    .use(payinRoutes(ctx, runner))
    .use(payoutRoutes(ctx))

  return {
    app,
    /**
     * Serves one request: the saved state is loaded before the first, customers reset since the
     * last request are forgotten, and what the request changed is saved before its answer leaves
     * (persistence.ts). A database that cannot load or save answers 503, as a partner's would.
     */
    async fetch(request: Request): Promise<Response> {
      try {
        await ctx.mirror.ready()
        await ctx.mirror.catchUp()
      } catch {
        return partnerError(503, 'ServiceUnavailable', 'The sandbox cannot read its state')
      }
      const res = await app.handle(request)
      try {
        await ctx.mirror.flush()
      } catch {
        await res.body?.cancel()
        return partnerError(503, 'ServiceUnavailable', 'The sandbox could not save its state')
      }
      return res
    },
    /** whether an onboarding link's token is one the simulator knows and has not expired (its saved state loaded first) */
    async knowsOnboardingToken(token: string): Promise<boolean> {
      await ctx.mirror.ready()
      await ctx.mirror.catchUp()
      const s = ctx.state.sessions.get(token)
      return !!s && s.expiresAt > ctx.now()
    },
    /**
     * Resumes the simulated deposits a stopped server left unfinished (deposit-run.ts), once its
     * saved state is loaded; answers how many. Call it once at start, in one process.
     */
    resume: () => runner.resumeRuns(),
    /** resolves once the webhooks and chain sends started so far are done */
    async settle() {
      while (ctx.pending.size) await Promise.allSettled([...ctx.pending])
    },
    /** entries held in memory per collection (expired ones included until they are dropped) */
    stats: () => stateSizes(ctx.state),
  }
}

export type BankRampSimulator = ReturnType<typeof createBankRampSimulator>
