/**
 * Operator pages: bull-board at /admin/queues (read-only, over bunqueue through
 * BunqueueBoardAdapter) and a webhook delivery summary at /admin/webhook-deliveries
 * (outbox, deliveries per status, the latest deliveries).
 *
 * Authentication: a browser cannot send a bearer header on a page load, so these
 * pages take HTTP Basic with a platform admin's username and password, verified with
 * argon2 exactly like the admin sign-in; 20 failed tries a minute per IP, then 429
 * without checking. A platform admin's bearer token is accepted too (for scripts).
 * Served over HTTPS in production like every route; nothing is cached.
 */
import { Elysia, t } from 'elysia'
import { errorResponses } from '../../http/schemas'
import { createBullBoard } from '@bull-board/api'
import { QueueBoardServer } from './queue-board-server'
import { BunqueueBoardAdapter, type BunqueueReads } from './queue-board-adapter'
import { desc, isNull, sql } from 'drizzle-orm'
import type { Deps } from '../../deps'
import { clientIp } from '../../http/security'
import { verifyPassword } from '../../lib/passwords'
import { iso } from '../../lib/clock'
import { actorFromBearer } from '../../http/auth'
import { outbox } from '../../jobs/schema'
import { findByUsername } from '../users/repo'
import type { JobRunner } from '../../jobs/runner'
import { webhookDeliveries } from './schema'

const REALM = 'Basic realm="Slipway queues", charset="UTF-8"'

const escapeHtml = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

async function isPlatformAdmin(deps: Deps, authorization: string | null): Promise<boolean> {
  if (!authorization) return false
  if (authorization.startsWith('Bearer ')) return (await actorFromBearer(deps, authorization))?.role === 'admin'
  if (!authorization.startsWith('Basic ')) return false
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return false
  const username = decoded.slice(0, colon)
  const password = decoded.slice(colon + 1)
  const user = await findByUsername(deps.database.db, null, username)
  // One argon2 verification whatever the username, as at sign-in.
  const ok = await verifyPassword(user?.status === 'active' && user.role === 'admin' ? user.passwordHash : null, password)
  return ok && user?.role === 'admin' && user.status === 'active'
}

export async function dashboardData(deps: Deps, runner: JobRunner | undefined) {
  const { db } = deps.database
  const now = deps.clock.now()
  const queue = runner?.bunQueue as unknown as { getJobCountsAsync?: () => Promise<Record<string, number>> } | undefined
  const queueCounts = queue?.getJobCountsAsync ? await queue.getJobCountsAsync() : null
  const [outboxRows, byStatus, latest] = await Promise.all([
    db.select({ topic: outbox.topic, waiting: sql<number>`count(*)`, due: sql<number>`sum(case when ${outbox.runAt} <= ${now} then 1 else 0 end)` })
      .from(outbox).where(isNull(outbox.dispatchedAt)).groupBy(outbox.topic),
    db.select({ status: webhookDeliveries.status, n: sql<number>`count(*)` }).from(webhookDeliveries).groupBy(webhookDeliveries.status),
    db.select().from(webhookDeliveries).orderBy(desc(webhookDeliveries.updatedAt)).limit(50),
  ])
  return { queueCounts, outboxRows, byStatus, latest, now }
}

function render(data: Awaited<ReturnType<typeof dashboardData>>) {
  const counts = data.queueCounts
    ? Object.entries(data.queueCounts).map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`).join('')
    : '<tr><td colspan="2">no queue worker runs in this process (SLIPWAY_ROLE=api)</td></tr>'
  const outboxRows = data.outboxRows.map((r) => `<tr><td>${escapeHtml(r.topic)}</td><td>${escapeHtml(r.waiting)}</td><td>${escapeHtml(r.due ?? 0)}</td></tr>`).join('') || '<tr><td colspan="3">empty</td></tr>'
  const statuses = data.byStatus.map((r) => `<tr><td>${escapeHtml(r.status)}</td><td>${escapeHtml(r.n)}</td></tr>`).join('') || '<tr><td colspan="2">none yet</td></tr>'
  const latest = data.latest.map((d) => `<tr><td>${escapeHtml(d.id)}</td><td>${escapeHtml(d.tenantId)}</td><td>${escapeHtml(d.environment)}</td><td>${escapeHtml(d.type)}</td><td>${escapeHtml(d.status)}</td><td>${escapeHtml(d.attempts)}/${escapeHtml(d.maxAttempts)}</td><td>${escapeHtml(d.lastStatusCode ?? '')}</td><td>${escapeHtml(d.lastError ?? '')}</td><td>${d.nextAttemptAt ? escapeHtml(iso(d.nextAttemptAt)) : ''}</td><td>${escapeHtml(iso(d.updatedAt))}</td></tr>`).join('')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Slipway webhook deliveries</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}th{background:#f4f4f4}</style></head>
<body><h1>Slipway webhook deliveries</h1><p>At ${escapeHtml(iso(data.now))}. Read-only. The job queue itself: <a href="/admin/queues">/admin/queues</a>.</p>
<h2>Job queue (bunqueue)</h2><table><tr><th>state</th><th>jobs</th></tr>${counts}</table>
<h2>Outbox (not yet in the queue)</h2><table><tr><th>topic</th><th>waiting</th><th>due now</th></tr>${outboxRows}</table>
<h2>Webhook deliveries</h2><table><tr><th>status</th><th>deliveries</th></tr>${statuses}</table>
<h2>Latest deliveries</h2><table><tr><th>id</th><th>tenant</th><th>environment</th><th>type</th><th>status</th><th>attempts</th><th>last status</th><th>last error</th><th>next attempt</th><th>updated</th></tr>${latest}</table>
</body></html>`
}

const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}
const GUARD_HEADERS = { 'cache-control': 'no-store', 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }

const FAILED_TRIES = 20
const PROTECTED = ['/admin/queues', '/admin/webhook-deliveries']
const isProtected = (pathname: string) => PROTECTED.some((p) => pathname === p || pathname.startsWith(p + '/'))

/** Answers a refusal, or null when a platform admin asks. Only failed tries count toward the limit. */
async function guard(deps: Deps, request: Request, ip: string, failures: Map<string, { start: number; count: number }>): Promise<Response | null> {
  const now = deps.clock.now()
  if (failures.size > 10_000) {
    for (const [k, v] of failures) if (now - v.start >= 60_000) failures.delete(k)
  }
  let f = failures.get(ip)
  if (f && now - f.start >= 60_000) {
    failures.delete(ip)
    f = undefined
  }
  if (f && f.count >= FAILED_TRIES) {
    const wait = Math.max(1, Math.ceil((f.start + 60_000 - now) / 1000))
    return new Response('Too many failed attempts\n', { status: 429, headers: { 'retry-after': String(wait), ...GUARD_HEADERS } })
  }
  const authorization = request.headers.get('authorization')
  if (await isPlatformAdmin(deps, authorization)) return null
  if (authorization) {
    if (!f) failures.set(ip, (f = { start: now, count: 0 }))
    f.count++
  }
  return new Response('Platform admin credentials required\n', { status: 401, headers: { 'www-authenticate': REALM, 'content-type': 'text/plain; charset=utf-8', ...GUARD_HEADERS } })
}

/** `runner` is this process's job runner (none in an API-only process: the pages then show the outbox alone). */
export function queueDashboardRoutes(deps: Deps, runner: JobRunner | undefined) {
  const failures = new Map<string, { start: number; count: number }>()
  const board = new QueueBoardServer('/admin/queues')
  const queue = () => runner?.bunQueue as unknown as BunqueueReads | undefined
  // bull-board locates its UI files in node_modules at run time; the compiled binary has
  // none, so there /admin/queues falls back to the read-only summary page below.
  let boardReady = true
  try {
    createBullBoard({
      queues: [new BunqueueBoardAdapter(queue, 'slipway')],
      serverAdapter: board,
      options: { uiConfig: { boardTitle: 'Slipway queues', hideRedisDetails: true } },
    })
  } catch {
    boardReady = false
  }
  const guarded = new Elysia({ name: 'slipway-queue-dashboard', seed: deps.config.publicBaseUrl, detail: { tags: ['Operations'] } })
    // Before routing, so bull-board's own routes (pages, API, static files) are covered too.
    .onRequest(async ({ request }) => {
      const { pathname } = new URL(request.url)
      if (!isProtected(pathname)) return
      const refused = await guard(deps, request, clientIp(deps, request), failures)
      if (refused) return refused
    })
  const withBoard = boardReady
    ? guarded.use(board.plugin())
    : guarded.get('/admin/queues', ({ redirect }) => redirect('/admin/webhook-deliveries', 302), { detail: { hide: true } })
  return withBoard
    .get('/admin/webhook-deliveries', async () => new Response(render(await dashboardData(deps, runner)), { headers: { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS } }), {
      response: { 200: t.String({ description: 'HTML page' }), ...errorResponses('standard', 401, 429) },
      detail: {
        operationId: 'webhookDeliveriesDashboard',
        summary: 'Webhook delivery summary for operators (HTML)',
        description: 'Read-only page: outbox rows not yet queued, deliveries per status, the 50 latest deliveries. The queue itself is at /admin/queues (bull-board, read-only). Platform admins only: HTTP Basic with an admin\'s username and password (argon2-verified; after 20 failed tries a minute per IP, 429), or an admin bearer token. Answers 401 with `WWW-Authenticate: Basic` otherwise.',
      },
    })
}
