/**
 * Answers a server gives from its own router, before the app (App.serverRoutes, src/app.ts).
 */
import type { Deps } from '../deps'

/**
 * A fixed JSON answer for a route the server answers from Bun's own router, before the app
 * (`/health`, src/app.ts `serverRoutes`): what `observed` adds to every answer, added here
 * too (the request id on the answer, one request log line, the request metric), around the
 * same bytes and headers the app's route answers. Nothing else is made per request: no
 * request state, no routing, no body serialised again, no headers object of the answer's own
 * (docs/benchmarks.md, "/health"). `start` is the caller's clock reading when it has one.
 */
export function fixedAnswer(deps: Pick<Deps, 'logger' | 'metrics'>, route: string, body: unknown): (request: Request, start?: number) => Response {
  const { logger, metrics } = deps
  const text = JSON.stringify(body)
  // One Headers, its id set for each answer: a Response copies the headers it is made with, so each
  // answer keeps its own id, and no Headers object is made per answer (reading `res.headers` makes one).
  // Passed as a Headers, not a plain object: Bun reads an init object's headers through a generic path.
  const headers = new Headers({ 'content-type': 'application/json;charset=utf-8', 'x-request-id': '' })
  const init = { headers }
  // GET's log line and series prepared once; HEAD (Bun answers it from the same route) the general way
  const logGet = logger.requestOf('GET', route, 200)
  const observeGet = metrics.requestOf('GET', route, 200)
  return (request, start = performance.now()) => {
    const id = crypto.randomUUID()
    headers.set('x-request-id', id)
    const res = new Response(text, init)
    const ms = performance.now() - start
    const method = request.method
    if (method === 'GET') {
      logGet(id, Math.round(ms * 100) / 100)
      observeGet(ms / 1000)
    } else {
      logger.request(id, method, route, 200, Math.round(ms * 100) / 100)
      metrics.request(method, route, 200, ms / 1000)
    }
    return res
  }
}
