/**
 * `slipway webhooks listen --tenant <id> [--port N] [--forward-to URL] [--json]`: a tenant's
 * sandbox webhook events on the developer's machine, in the spirit of `stripe listen`.
 *
 * Like every operator command it runs beside the server, with the server's environment,
 * and acts on its database: it serves a listener on 127.0.0.1, stores a development route
 * `<tenantId>.listen.webhooks.test` -> that listener, and points the tenant's sandbox
 * webhook at `https://<tenantId>.listen.webhooks.test/events` through the webhooks
 * module's own verbs (src/modules/webhooks/dev-listen.ts). The server's deliveries then
 * take the production path (signing, retries, delivery log) except the connection target.
 *
 * Each delivery is verified as a tenant verifies it (Standard Webhooks headers, the
 * webhook's secret, five minutes of clock skew) and printed, one line each: verified ones
 * are answered 204 (or with --forward-to, posted on unchanged, headers and bytes, and
 * answered with that server's status, so Slipway's retries behave as in production);
 * the others 401, and the line says why. On SIGINT, SIGTERM or SIGHUP the webhook gets
 * its earlier address back (or is removed when the listener created it) and the route is
 * deleted. A listener killed without that clean-up is undone by the next one.
 */
import type { Config } from '../config'
import { applyMigrations } from '../db/migrate'
import { buildDeps, type Deps } from '../deps'
import { AppError } from '../lib/errors'
import { currentDevRoute, ListenRefused, startListening, stopListening, type ListenSession, verifyDelivery } from '../modules/webhooks'
import type { CommandCtx } from '../modules/webhooks'

export const LISTEN_USAGE = 'usage: slipway webhooks listen --tenant <tenantId> [--port <port>] [--forward-to <url>] [--json]'
/** Answered on GET by a running listener, so a second one for the tenant can tell it is alive. */
const LISTENER_HEADER = 'x-slipway-listener'
const FORWARD_TIMEOUT_MS = 10_000
/** Headers a delivery carries that a forwarded copy keeps (the signature covers the body only). */
const FORWARDED_HEADERS = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-webhook-id', 'x-webhook-timestamp', 'x-webhook-event', 'x-webhook-signature']

interface Options {
  tenantId: string
  port: number
  forwardTo?: string
  json: boolean
}

function parseOptions(args: string[]): Options | string {
  const values: Record<string, string> = {}
  let json = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--json') json = true
    else if (['--tenant', '--port', '--forward-to'].includes(arg) && args[i + 1] !== undefined) values[arg] = args[++i]!
    else if (/^--(tenant|port|forward-to)=/.test(arg)) values[arg.slice(0, arg.indexOf('='))] = arg.slice(arg.indexOf('=') + 1)
    else return `unknown option ${arg}`
  }
  const tenantId = values['--tenant']?.trim()
  if (!tenantId) return '--tenant is required'
  const port = Number(values['--port'] ?? 0)
  if (!Number.isInteger(port) || port < 0 || port > 65535) return '--port must be a port number (0 picks a free one)'
  const forwardTo = values['--forward-to']
  if (forwardTo !== undefined) {
    try {
      if (!/^https?:$/.test(new URL(forwardTo).protocol)) return '--forward-to must be an http:// or https:// address'
    } catch {
      return '--forward-to must be an http:// or https:// address'
    }
  }
  return { tenantId, port, forwardTo, json }
}

/** Runs until a signal; answers the exit code for a start that failed. */
export async function webhooksListen(config: Config, args: string[]): Promise<number> {
  const options = parseOptions(args)
  if (typeof options === 'string') {
    console.error(`${options}\n${LISTEN_USAGE}`)
    return 2
  }
  const deps = await buildDeps(config, { migrate: applyMigrations })
  const ctx: CommandCtx = { deps, actor: null, tenant: null, requestId: 'cli:webhooks-listen' }
  const stale = await currentDevRoute(ctx, options.tenantId).catch(() => undefined)
  if (stale && (await isListening(stale.origin, options.tenantId))) {
    console.error(`Another slipway webhooks listen for tenant ${options.tenantId} is running (${stale.origin}): stop it first.`)
    deps.database.close()
    return 1
  }

  let session: ListenSession | undefined
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: options.port,
    fetch: (req) => (session ? receive(deps, session, options, req) : new Response('starting', { status: 503 })),
  })
  const origin = `http://127.0.0.1:${server.port}`
  try {
    session = await startListening(ctx, options.tenantId, origin)
  } catch (err) {
    await server.stop(true)
    deps.database.close()
    console.error(`Cannot listen: ${startError(err, options.tenantId)}`)
    return 1
  }
  if (stale) console.error(`An earlier listener's route was left behind (stopped without its clean-up); this listener takes it over.`)
  printBanner(session, options)

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    await server.stop(true)
    try {
      const end = await stopListening(ctx, session!)
      if (end.webhook === 'restored') console.error(`${signal}: the sandbox webhook posts to ${end.url} again; the development route is deleted.`)
      else if (end.webhook === 'removed') console.error(`${signal}: the sandbox webhook this listener created is removed; the development route is deleted.`)
      else console.error(`${signal}: the sandbox webhook was changed meanwhile (now ${end.url ?? 'removed'}) and is left as it is; the development route is deleted.`)
    } catch (err) {
      console.error(`${signal}: could not put the sandbox webhook back: ${(err as Error).message}`)
      process.exitCode = 1
    } finally {
      deps.database.close()
    }
    process.exit()
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal))
  return await new Promise<number>(() => {})
}

function startError(err: unknown, tenantId: string): string {
  if (err instanceof ListenRefused) return err.message
  if (err instanceof AppError) {
    const details = err.details as { code?: string } | undefined
    if (details?.code === 'RAMP_NOT_CONFIGURED') {
      return `${err.message}. Webhooks need the bank ramp connected in the sandbox: `
        + `PATCH /v1/admin/tenants/${tenantId} { "settings": { "bankRamp": { "sandbox": { "connected": true } } } } (docs/bank-ramp.md)`
    }
    return err.message
  }
  return (err as Error).message ?? String(err)
}

async function isListening(origin: string, tenantId: string): Promise<boolean> {
  try {
    const res = await fetch(origin, { signal: AbortSignal.timeout(1000) })
    await res.body?.cancel()
    return res.headers.get(LISTENER_HEADER) === tenantId
  } catch {
    return false
  }
}

function printBanner(s: ListenSession, options: Options) {
  // The secret is shown although the API shows it only at creation and rotation: whoever runs
  // this command holds MASTER_KEY and the database, which open it anyway, and a receiver
  // behind --forward-to needs it to verify.
  const lines = [
    `Listening for the sandbox webhook events of tenant ${s.tenantName} (${s.tenantId}) on ${s.origin}`,
    `The sandbox webhook ${s.created ? 'was created and ' : ''}posts to ${s.url}, a development route to this listener; `
      + `on Ctrl-C it ${s.restoreUrl ? `posts to ${s.restoreUrl} again` : 'is removed'}.`,
    `Signing secret: ${s.secret} (each delivery is verified with it here; a receiver of yours verifies with it too, docs/webhooks.md)`,
    `Event types: ${s.eventTypes.length ? s.eventTypes.join(', ') : 'every type'}`,
  ]
  if (s.status === 'disabled') lines.push('The webhook is disabled: only test deliveries arrive (PUT .../webhooks/sandbox { "status": "active" } to receive events).')
  if (options.forwardTo) lines.push(`Verified deliveries are forwarded to ${options.forwardTo}, and answered with its status.`)
  lines.push(`A test event: POST /v1/admin/tenants/${s.tenantId}/webhooks/sandbox/test (a platform admin or the tenant's administrator).`)
  lines.push('Ready. Ctrl-C to stop.')
  console.error(lines.join('\n'))
}

async function receive(deps: Deps, session: ListenSession, options: Options, req: Request): Promise<Response> {
  if (req.method !== 'POST') return new Response(`slipway webhooks listen (tenant ${session.tenantId})\n`, { headers: { [LISTENER_HEADER]: session.tenantId } })
  const body = await req.text()
  const at = new Date(deps.clock.now())
  const verdict = verifyDelivery(session.secret, req.headers, body, Math.floor(at.getTime() / 1000))
  const id = req.headers.get('webhook-id') ?? req.headers.get('x-webhook-id') ?? ''
  if (!verdict.ok) {
    print(options, at, { verified: false, status: 401, id, reason: verdict.reason }, `refused (401: ${verdict.reason})  ${id || '(no webhook-id)'}`)
    return Response.json({ error: 'signature not verified', reason: verdict.reason }, { status: 401 })
  }
  let event: { id?: string; type?: string; data?: unknown }
  try {
    event = JSON.parse(body)
  } catch {
    event = {}
  }
  const forwarded = options.forwardTo ? await forward(options.forwardTo, req.headers, body) : undefined
  const status = forwarded?.status ?? 204
  print(options, at,
    { verified: true, status, id: event.id ?? id, type: event.type ?? null, data: event.data ?? null, ...(forwarded ? { forwarded } : {}) },
    `verified  ${event.type ?? '(no type)'}  ${event.id ?? id}  ${JSON.stringify(event.data ?? null)}${forwarded ? `  -> ${options.forwardTo} ${forwarded.error ?? forwarded.status}` : ''}`)
  return new Response(null, { status })
}

async function forward(to: string, headers: Headers, body: string): Promise<{ status: number; error?: string }> {
  const copy = new Headers()
  for (const name of FORWARDED_HEADERS) {
    const value = headers.get(name)
    if (value !== null) copy.set(name, value)
  }
  try {
    const res = await fetch(to, { method: 'POST', headers: copy, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) })
    await res.body?.cancel().catch(() => {})
    return { status: res.status }
  } catch (err) {
    return { status: 502, error: `not reached: ${(err as Error).message}` }
  }
}

function print(options: Options, at: Date, record: Record<string, unknown>, line: string) {
  console.log(options.json ? JSON.stringify({ at: at.toISOString(), ...record }) : `${at.toISOString()}  ${line}`)
}
