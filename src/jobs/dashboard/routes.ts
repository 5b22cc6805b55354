/**
 * Operator pages of the jobs layer: bull-board at /admin/queues (read-only, over bunqueue
 * through BunqueueBoardAdapter) and a summary at /admin/webhook-deliveries (outbox,
 * webhook deliveries per status, the latest deliveries, read through the webhooks
 * module's exported `deliverySummary`).
 *
 * Authentication is the `adminBasic` security option on every route, bull-board's own
 * pages, API and static files included (src/http/security.ts): a browser cannot send a
 * bearer header on a page load, so these pages take HTTP Basic with a platform admin's
 * username and password, or an admin's bearer token (for scripts). Served over HTTPS in
 * production like every route; nothing is cached.
 */
import { Elysia, NotFoundError, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { iso } from '../../lib/clock'
import { lazy } from '../../lib/lazy'
import { deliverySummary } from '../../modules/webhooks'
import { pendingByTopic } from '../outbox'
import type { JobRunner } from '../runner'
import type { BunqueueReads } from './queue-board-adapter'

const escapeHtml = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
/** A table row of escaped cells (`td`), or of header cells (`th`). */
const row = (cells: unknown[], tag: 'td' | 'th' = 'td') => `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`

async function summaryData(deps: Deps, runner: JobRunner | undefined) {
  const { db } = deps.database
  const now = deps.clock.now()
  const queue = runner?.bunQueue as unknown as { getJobCountsAsync?: () => Promise<Record<string, number>> } | undefined
  const queueCounts = queue?.getJobCountsAsync ? await queue.getJobCountsAsync() : null
  const [outboxRows, deliveries] = await Promise.all([pendingByTopic(db, now), deliverySummary(db, 50)])
  const noQueue = runner ? 'the job queue opens with the first due job: none has come due since this process started' : 'no queue worker runs in this process (SLIPWAY_ROLE=api)'
  return { queueCounts, noQueue, outboxRows, byStatus: deliveries.byStatus, latest: deliveries.latest, now }
}

function render(data: Awaited<ReturnType<typeof summaryData>>) {
  const counts = data.queueCounts
    ? Object.entries(data.queueCounts).map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`).join('')
    : `<tr><td colspan="2">${escapeHtml(data.noQueue)}</td></tr>`
  const outboxRows = data.outboxRows.map((r) => row([r.topic, r.waiting, r.due ?? 0])).join('') || '<tr><td colspan="3">empty</td></tr>'
  const statuses = data.byStatus.map((r) => `<tr><td>${escapeHtml(r.status)}</td><td>${escapeHtml(r.n)}</td></tr>`).join('') || '<tr><td colspan="2">none yet</td></tr>'
  const latest = data.latest.map((d) => row([
    d.id, d.tenantId, d.environment, d.type, d.status, `${d.attempts}/${d.maxAttempts}`,
    d.lastStatusCode ?? '', d.lastError ?? '', d.nextAttemptAt ? iso(d.nextAttemptAt) : '', iso(d.updatedAt),
  ])).join('')
  const latestHead = row(['id', 'tenant', 'environment', 'type', 'status', 'attempts', 'last status', 'last error', 'next attempt', 'updated'], 'th')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Slipway webhook deliveries</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}th{background:#f4f4f4}</style></head>
<body><h1>Slipway webhook deliveries</h1><p>At ${escapeHtml(iso(data.now))}. Read-only. The job queue itself: <a href="/admin/queues">/admin/queues</a>.</p>
<h2>Job queue (bunqueue)</h2><table><tr><th>state</th><th>jobs</th></tr>${counts}</table>
<h2>Outbox (not yet in the queue)</h2><table><tr><th>topic</th><th>waiting</th><th>due now</th></tr>${outboxRows}</table>
<h2>Webhook deliveries</h2><table><tr><th>status</th><th>deliveries</th></tr>${statuses}</table>
<h2>Latest deliveries</h2><table>${latestHead}${latest}</table>
</body></html>`
}

const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

// A new object for each route: Elysia writes the macro's hooks into the options it is
// given, so one shared object would carry the first app's checks (its deps) into the next.
const hidden = () => ({ detail: { hide: true }, adminBasic: true }) as const

const BOARD_PATH = '/admin/queues'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  webhookDeliveriesDashboard: prose`
    Read-only page: outbox rows not yet queued, deliveries per status, the 50 latest deliveries. The
    queue itself is at /admin/queues (bull-board, read-only). Platform admins only: HTTP Basic with
    an admin's username and password (argon2-verified; after 20 failed tries a minute per IP, 429),
    or an admin bearer token. Answers 401 with \`WWW-Authenticate: Basic\` otherwise.`,
}

/** `runner` is this process's job runner (none in an API-only process: the pages then show the outbox alone). */
export function queueDashboardRoutes(deps: Deps, runner: JobRunner | undefined) {
  const queue = () => runner?.bunQueue as unknown as BunqueueReads | undefined
  // bull-board (with ejs and lodash) loads with the first request under /admin/queues that
  // passed the admin check; it locates its UI files in node_modules at run time, so in the
  // compiled binary, which has none, there is no board (null) and /admin/queues falls back
  // to the read-only summary page below.
  const board = lazy(async () => (await import('./queue-board-server')).openQueueBoard(BOARD_PATH, queue, 'slipway'))
  const serve = async ({ request, path, query, body, headers, set }: {
    request: Request
    path: string
    query: Record<string, unknown>
    body: unknown
    headers: Record<string, string | undefined>
    set: { status?: number | string }
  }) => {
    const handle = await board()
    if (!handle) throw new NotFoundError()
    const res = await handle({ method: request.method, path: path.slice(BOARD_PATH.length), query, body, headers })
    if (res instanceof Response) return res
    if (res.status) set.status = res.status
    return res.body
  }
  const withBoard = new Elysia({ name: 'slipway-queue-dashboard', seed: deps.config.publicBaseUrl, detail: { tags: ['Operations'] } })
    .use(security(deps))
    .get(BOARD_PATH, async (ctx) => ((await board()) ? serve(ctx) : ctx.redirect('/admin/webhook-deliveries', 302)), hidden())
    .all(`${BOARD_PATH}/*`, (ctx) => serve(ctx), hidden())
  return withBoard
    .get('/admin/webhook-deliveries', async () => new Response(render(await summaryData(deps, runner)), { headers: { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS } }), {
      adminBasic: true,
      response: { 200: t.String({ description: 'HTML page' }), ...errorResponses('standard', 401, 429) },
      detail: {
        operationId: 'webhookDeliveriesDashboard',
        summary: 'Webhook delivery summary for operators (HTML)',
        description: descriptions.webhookDeliveriesDashboard,
      },
    })
    // Other paths under the page answer 404 only to a platform admin, as under /admin/queues.
    .all('/admin/webhook-deliveries/*', () => {
      throw new NotFoundError()
    }, hidden())
}
