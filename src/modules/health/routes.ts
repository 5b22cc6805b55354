import { Elysia, t } from 'elysia'
import { integer } from '../../http/integer'
import { sql } from 'drizzle-orm'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { ServiceUnavailableError, UnauthorizedError } from '../../lib/errors'
import { safeEqual } from '../../lib/crypto'
import { actorFromBearer, bearerToken } from '../../http/auth'

/** What /health/ready asks of the job queue when this process runs one. */
export interface QueueProbe {
  counts(): Promise<Record<string, number>>
}

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  ready: prose`
    Checks the database and, in processes that run the job queue, the queue. 503 when one is down. A
    process on an embedded replica stays ready while the primary cannot be reached (it serves reads;
    writes answer 503): \`checks.replica\` is then \`stale\`, and \`replica.lagMs\` says how old its
    data may be.`,
  metrics: prose`
    Requests by route and status with latency histograms, job outcomes and queue depth, webhook
    delivery outcomes, and chain and partner call latency. Authorised by
    \`Authorization: Bearer <METRICS_TOKEN>\` or a platform admin's access token.`,
}

/**
 * The liveness answer. The server also answers `GET /health` from Bun's own router, before
 * this app (src/app.ts, `serverRoutes`), with these same bytes and headers.
 */
export const LIVENESS = Object.freeze({ status: 'ok' as const })

export function healthRoutes(deps: Deps, queue?: QueueProbe) {
  return new Elysia({ detail: { tags: ['Operations'] } })
    .use(security(deps))
    .get('/health', () => LIVENESS, {
      response: { 200: t.Object({ status: t.Literal('ok') }) },
      detail: { operationId: 'health', summary: 'Liveness probe', description: 'No credentials; touches nothing but the process.' },
    })
    .get('/health/ready', async () => {
      const checks: Record<string, 'ok' | 'stale'> = {}
      try {
        await deps.database.db.run(sql`select 1`)
        checks.database = 'ok'
      } catch {
        throw new ServiceUnavailableError('Database unavailable')
      }
      // An edge on an embedded replica stays ready while the primary is away: it answers
      // reads from the replica (and refuses writes with 503), so it says `stale` and how old its view is.
      const replica = deps.database.replica?.status()
      if (replica) checks.replica = replica.state === 'fresh' ? 'ok' : 'stale'
      if (queue) {
        try {
          await queue.counts()
          checks.queue = 'ok'
        } catch {
          throw new ServiceUnavailableError('Job queue unavailable')
        }
      }
      return {
        status: 'ready' as const,
        checks,
        ...(replica ? { replica: { state: replica.state, lagMs: replica.lagMs, primaryReachable: replica.primaryReachable, frameNo: replica.frameNo } } : {}),
      }
    }, {
      response: {
        200: t.Object({
          status: t.Literal('ready'),
          checks: t.Record(t.String(), t.Union([t.Literal('ok'), t.Literal('stale')])),
          replica: t.Optional(t.Object({
            state: t.Union([t.Literal('fresh'), t.Literal('stale')]),
            lagMs: integer({ description: 'milliseconds since the replica last pulled from the primary (-1: never)' }),
            primaryReachable: t.Boolean(),
            frameNo: t.Union([integer(), t.Null()], { description: 'the primary\'s replication frame the replica last pulled' }),
          }, { description: 'present on a process whose database is an embedded replica (DATABASE_SYNC_URL)' })),
        }),
        ...errorResponses('standard', 503),
      },
      detail: {
        operationId: 'ready', summary: 'Readiness probe',
        description: descriptions.ready,
      },
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
        description: descriptions.metrics,
      },
    })
}
