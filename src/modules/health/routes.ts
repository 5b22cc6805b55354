import { Elysia, t } from 'elysia'
import { sql } from 'drizzle-orm'
import type { Deps } from '../../deps'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { ServiceUnavailableError, UnauthorizedError } from '../../http/errors'
import { safeEqual } from '../../lib/crypto'
import { actorFromBearer, bearerToken } from '../../http/auth'

/** What /health/ready asks of the job queue when this process runs one. */
export interface QueueProbe {
  counts(): Promise<Record<string, number>>
}

export function healthRoutes(deps: Deps, queue?: QueueProbe) {
  return new Elysia({ detail: { tags: ['Operations'] } })
    .use(security(deps))
    .get('/health', () => ({ status: 'ok' as const }), {
      response: { 200: t.Object({ status: t.Literal('ok') }) },
      detail: { operationId: 'health', summary: 'Liveness probe', description: 'No credentials; touches nothing but the process.' },
    })
    .get('/health/ready', async () => {
      const checks: Record<string, 'ok'> = {}
      try {
        await deps.database.db.run(sql`select 1`)
        checks.database = 'ok'
      } catch {
        throw new ServiceUnavailableError('Database unavailable')
      }
      if (queue) {
        try {
          await queue.counts()
          checks.queue = 'ok'
        } catch {
          throw new ServiceUnavailableError('Job queue unavailable')
        }
      }
      return { status: 'ready' as const, checks }
    }, {
      response: { 200: t.Object({ status: t.Literal('ready'), checks: t.Record(t.String(), t.Literal('ok')) }), ...errorResponses('standard', 503) },
      detail: { operationId: 'ready', summary: 'Readiness probe', description: 'Checks the database and, in processes that run the job queue, the queue. 503 when one is down.' },
    })
    .get('/metrics', async ({ request, set }) => {
      const header = request.headers.get('authorization')
      const token = bearerToken(header)
      // A static METRICS_TOKEN for scrapers, or a platform admin's access token.
      const allowed = (!!token && !!deps.config.metricsToken && safeEqual(token, deps.config.metricsToken)) || (await actorFromBearer(deps, header))?.role === 'admin'
      if (!allowed) throw new UnauthorizedError()
      set.headers['content-type'] = 'text/plain; version=0.0.4; charset=utf-8'
      return deps.metrics.render()
    }, {
      response: { 200: t.String({ description: 'Prometheus text format' }), ...errorResponses('standard', 401) },
      detail: {
        operationId: 'metrics', summary: 'Prometheus metrics', security: [{ bearerAuth: [] }],
        description: 'Requests by route and status with latency histograms, job outcomes and queue depth, webhook delivery outcomes, and chain and partner call latency. Authorised by `Authorization: Bearer <METRICS_TOKEN>` or a platform admin\'s access token.',
      },
    })
}
