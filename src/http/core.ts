/**
 * The app-wide HTTP plumbing: request ids, the JSON request log, body parsing that
 * keeps the raw bytes, and the one place where errors become responses.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../deps'
import { errorSummary } from '../lib/logger'
import { isBusy } from '../db/busy'
import { DatabaseBusyError } from '../db/errors'
import { AppError, SchemaValidationError, errorBody, type ErrorStyle } from './errors'
import { stateOf, type RequestState } from './request-state'
import { toValidationIssues } from './validation'

/** Error style per `METHOD route`, read from each route's `x-error-style` once the app is built. */
export class ErrorStyles {
  private map = new Map<string, ErrorStyle>()
  build(routes: ReadonlyArray<{ method: string; path: string; hooks?: unknown }>) {
    for (const r of routes) {
      const style = (r.hooks as { detail?: Record<string, unknown> } | undefined)?.detail?.['x-error-style']
      if (style) this.map.set(`${r.method} ${r.path}`, style as ErrorStyle)
    }
  }
  of(method: string, route: string | undefined): ErrorStyle {
    return (route && this.map.get(`${method} ${route}`)) || 'standard'
  }
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json$/i
const decoder = new TextDecoder('utf-8', { fatal: true })
const RAW_JSON = 'slipway-raw-json'

/**
 * Reads the body once, keeping its raw bytes for tenant signatures (they sign the bytes
 * as sent, not a re-serialisation), and parses it as JSON (another content type is kept
 * as text, see below). An empty body reads as `{}`,
 * so a route whose fields are all optional takes it and others name their missing
 * fields. Over `maxBytes`: 413 (see readBodyUpTo).
 */
export async function readJsonBody(request: Request, contentType: string | undefined, maxBytes: number): Promise<unknown> {
  const bytes = await readBodyUpTo(request, maxBytes)
  stateOf(request).raw = bytes
  if (bytes.length === 0) return {}
  // signed deliveries: nothing reads the body before the route has checked its signature over these bytes
  if (isRawBodyPath(pathOf(request.url))) return {}
  if (contentType && !JSON_TYPE.test(contentType)) {
    // Handed over as text: the few routes that take a form (the sandbox simulator's HTML
    // page) read it themselves; a route with a JSON body schema answers 415 (onError below).
    stateOf(request).notJson = contentType.slice(0, 100)
    try {
      return decoder.decode(bytes)
    } catch {
      throw new AppError(400, 'Bad Request', 'Request body is not valid UTF-8')
    }
  }
  let text: string
  try {
    text = decoder.decode(bytes)
  } catch {
    throw new AppError(400, 'Bad Request', 'Request body is not valid UTF-8')
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new AppError(400, 'Bad Request', 'Request body is not valid JSON')
  }
  // Every body Slipway takes is a JSON object. Refused here, once, because the schema
  // layer would read `"hello"` or `[1]` as an empty object and let an all-optional body pass.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AppError(400, 'Bad Request', 'Request body must be a JSON object')
  return value
}

/**
 * Routes whose body is a signed delivery from a partner: the parser keeps the bytes
 * (`stateOf(request).raw`) and parses nothing, so an unsigned body is refused as unsigned
 * (401) whatever it holds, and the signature is checked over the bytes as sent, before
 * anything decodes them (docs/bank-ramp.md, Partner events). The route parses after.
 */
const RAW_BODY_PREFIXES = ['/v1/ramp/bank/webhooks/']
const isRawBodyPath = (path: string) => RAW_BODY_PREFIXES.some((p) => path.startsWith(p))

/**
 * The body's bytes, never more than `maxBytes` of them: a declared `content-length` over
 * the limit is refused before anything is read; a body without one (chunked) is counted
 * as it arrives and refused once it passes the limit, its stream cancelled there, so no
 * more than the limit plus one chunk is ever held. A declared length within the limit is
 * read whole: HTTP framing ends the body there.
 */
async function readBodyUpTo(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes)
  if (declared !== null && !request.headers.has('transfer-encoding')) {
    const bytes = new Uint8Array(await request.arrayBuffer())
    if (bytes.length > maxBytes) throw tooLarge(maxBytes)
    return bytes
  }
  if (!request.body) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (total > maxBytes) {
      // stop reading: the client is answered at once and nothing more is buffered
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]!
  const bytes = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.length
  }
  return bytes
}

/**
 * Bun.serve's own `maxRequestBodySize`: none in effect. Bun answers a body over its cap
 * with an empty 413 (no envelope, no limit named), so the app keeps the limit itself
 * (readBodyUpTo: a declared length refused before reading, a chunked body counted as it
 * arrives). A body no route reads is not buffered either: Bun pulls from the socket only
 * as the body is read, so an unread upload waits on TCP back-pressure until the answer.
 */
export const SERVER_MAX_REQUEST_BODY_SIZE = Number.MAX_SAFE_INTEGER

function tooLarge(maxBytes: number) {
  return new AppError(413, 'Payload Too Large', `Request body is larger than the limit of ${maxBytes} bytes (MAX_BODY_BYTES)`)
}

export function corePlugin(deps: Deps, styles: ErrorStyles) {
  const { logger } = deps
  return new Elysia({ name: 'slipway-core' })
    // the route pattern, for the request log and metrics (see `observed`)
    .onTransform({ as: 'global' }, ({ request, route }) => {
      stateOf(request).route = route
    })
    // The parser is named in a list that ends with Elysia's own 'json': @elysiajs/openapi
    // builds a route's `requestBody.content` only from parsers it can name, so a bare
    // function hook left every body as `content: {}`. Ours always returns a value, so the
    // trailing 'json' never runs; it states what the routes take, for the document.
    .parser(RAW_JSON, ({ request }, contentType) => readJsonBody(request, contentType, deps.config.maxBodyBytes))
    .on({ as: 'global' }, 'parse', [RAW_JSON, 'json'] as never)
    .onError({ as: 'global' }, async ({ code, error, request, route, path, set }) => {
      const state = stateOf(request)
      if (route) state.route = route
      for (const fn of state.beforeErrorAnswer ?? []) {
        await fn().catch((e) => logger.error('cleanup before an error answer failed', { requestId: state.id, ...errorSummary(e) }))
      }
      let err: AppError
      if (error instanceof AppError) err = error
      // drizzle wraps what the database client throws (DatabaseUnavailableError: a 503) in DrizzleQueryError
      else if ((error as { cause?: unknown })?.cause instanceof AppError) err = (error as { cause: AppError }).cause
      else if (code === 'VALIDATION' && (error as { type?: string }).type === 'body' && state.notJson) {
        err = new AppError(415, 'Unsupported Media Type', `Content-Type must be application/json, not ${state.notJson}`)
      } else if (code === 'VALIDATION' && (error as { type?: string }).type !== 'response') {
        err = new SchemaValidationError(toValidationIssues((error as unknown as { all: never[] }).all))
      } else if (code === 'PARSE') err = new AppError(400, 'Bad Request', 'Request body is not valid JSON')
      else if (code === 'NOT_FOUND') {
        set.status = 404
        return { message: `Route ${request.method}:${path} not found`, error: 'Not Found', statusCode: 404 }
      } else if (isBusy(error)) {
        // the database's write lock refused a statement no retry covered (src/db/busy.ts): nothing of it was written
        logger.warn('database busy', { requestId: state.id, method: request.method, route, ...errorSummary(error) })
        err = new DatabaseBusyError(1, 'The database\'s write lock is held by another writer; nothing was written, try again shortly')
      } else {
        logger.error('unhandled error', { requestId: state.id, method: request.method, route, ...errorSummary(error) })
        err = new AppError(500, 'InternalServerError', 'Internal server error')
      }
      set.status = err.status
      // 429 rate limits, and 503 DATABASE_BUSY (too many writes in flight, src/db/limiter.ts)
      if ((err.status === 429 || err.status === 503) && 'retryAfterSeconds' in err) set.headers['retry-after'] = String(err.retryAfterSeconds)
      return errorBody(err, styles.of(request.method, route))
    })
}

/** What `observed` wraps: Elysia's `fetch`, which answers a synchronous route without a promise. */
export interface Fetcher {
  fetch(request: Request): Response | Promise<Response>
}

/**
 * The request id, the JSON request log line and the request metrics, around the built
 * app rather than in Elysia hooks: an after-response hook costs every request a
 * `setImmediate` and a closure, and a header set in a request hook takes every answer
 * off Elysia's plain-response path. The answer's status is read once it is made and the
 * id added to its headers; a route that answers synchronously stays synchronous (no
 * promise for Bun.serve to wait on).
 */
export function observed(deps: Pick<Deps, 'logger' | 'metrics'>, app: Fetcher): Fetcher & { handle(request: Request): Promise<Response> } {
  const { logger, metrics } = deps
  const finish = (request: Request, s: RequestState, answer: Response): Response => {
    let res = answer
    try {
      res.headers.set('x-request-id', s.id)
    } catch {
      // headers of a redirect or a fetched answer are immutable: the same answer, with headers of its own
      res = new Response(res.body, res)
      res.headers.set('x-request-id', s.id)
    }
    const ms = performance.now() - s.start
    // the path only (query strings can carry reset tokens), with tokens inside paths redacted
    logger.request(s.id, request.method, loggedPath(pathOf(request.url)), res.status, Math.round(ms * 100) / 100)
    metrics.request(request.method, s.route || 'unmatched', res.status, ms / 1000)
    return res
  }
  const fetch = (request: Request): Response | Promise<Response> => {
    const s = stateOf(request)
    const out = app.fetch(request)
    return out instanceof Promise ? out.then((res) => finish(request, s, res)) : finish(request, s, out)
  }
  return { fetch, handle: async (request) => fetch(request) }
}
/**
 * Paths with a credential inside: the hosted KYC page's link is its only key (whoever has it
 * can approve or decline the customer), so a log line keeps the page's shape, not the token.
 * Every other token Slipway hands out travels in a query string (reset links) or a header,
 * which the log never shows. A route whose path carries a secret must be listed here
 * (tests/platform/log-redaction.test.ts checks the routes against this list).
 */
export const SECRET_PATHS: ReadonlyArray<{ prefix: string; pattern: RegExp }> = [
  { prefix: '/sandbox/bank-ramp/onboarding/', pattern: /^(\/sandbox\/bank-ramp\/onboarding\/)[^/]+/ },
]

/** The path as the request log shows it: tokens inside paths replaced by `[redacted]`. */
export function loggedPath(path: string): string {
  for (const s of SECRET_PATHS) if (path.startsWith(s.prefix)) return path.replace(s.pattern, '$1[redacted]')
  return path
}

/** The path of an absolute URL, without its query: no URL object per request. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const q = url.indexOf('?', start)
  const h = url.indexOf('#', start)
  const end = q < 0 ? (h < 0 ? url.length : h) : h < 0 ? q : Math.min(q, h)
  return url.slice(start, end)
}
