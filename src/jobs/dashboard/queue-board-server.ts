/**
 * bull-board's server side on our Elysia app. `@bull-board/elysia` loads Elysia through
 * `require` (a second copy of the framework beside our ESM one) and registers its
 * routes asynchronously, which our app cannot mount; this adapter registers the same
 * routes synchronously: the page, bull-board's JSON API, and its static files, each
 * behind the `adminBasic` security option.
 */
import { resolve, sep } from 'node:path'
import { Elysia, NotFoundError } from 'elysia'
import type { Deps } from '../../deps'
import { security } from '../../http/security'
import ejs from 'ejs'
import type {
  AppControllerRoute, AppViewRoute, BullBoardQueues, ControllerHandlerReturnType, HTTPMethod, IServerAdapter, UIConfig,
} from '@bull-board/api/typings/app'

export class QueueBoardServer implements IServerAdapter {
  private queues?: BullBoardQueues
  private viewsPath = ''
  private statics?: { route: string; path: string }
  private entry?: AppViewRoute
  private errorHandler?: (error: Error) => ControllerHandlerReturnType
  private api: AppControllerRoute[] = []
  private uiConfig: UIConfig = {}

  constructor(readonly basePath: string) {}

  setQueues(queues: BullBoardQueues) { this.queues = queues; return this }
  setViewsPath(path: string) { this.viewsPath = path; return this }
  setStaticPath(route: string, path: string) { this.statics = { route, path: resolve(path) }; return this }
  setEntryRoute(route: AppViewRoute) { this.entry = route; return this }
  setErrorHandler(handler: (error: Error) => ControllerHandlerReturnType) { this.errorHandler = handler; return this }
  setApiRoutes(routes: AppControllerRoute[]) { this.api = routes; return this }
  setUIConfig(config: UIConfig = {}) { this.uiConfig = config; return this }

  /** The routes, under `basePath`, for platform admins only; call after createBullBoard configured this adapter. */
  plugin(deps: Deps) {
    const { entry, statics, queues } = this
    if (!entry || !statics || !queues) throw new Error('createBullBoard must configure the adapter first')
    const app = new Elysia({ name: 'slipway-bull-board', prefix: this.basePath }).use(security(deps))
    const hidden = { detail: { hide: true }, adminBasic: true }
    for (const { route, handler, method } of this.api) {
      for (const m of ([] as HTTPMethod[]).concat(method)) {
        for (const r of ([] as string[]).concat(route)) {
          app.route(m.toUpperCase(), r, async ({ params, body, query, headers, set }) => {
            try {
              const res = await handler({
                queues,
                uiConfig: this.uiConfig,
                params: Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, typeof v === 'string' ? decodeURIComponent(v) : v])),
                query: query as Record<string, any>,
                body: body as Record<string, any>,
                headers: headers as Record<string, string>,
              })
              if (res.status) set.status = res.status
              return res.body
            } catch (err) {
              const res = this.errorHandler?.(err as Error) ?? { status: 500, body: { error: 'Internal server error' } }
              set.status = res.status ?? 500
              return res.body
            }
          }, hidden)
        }
      }
    }
    const page = async () => {
      const { name, params } = entry.handler({ basePath: this.basePath, uiConfig: this.uiConfig })
      return new Response(await ejs.renderFile(`${this.viewsPath}/${name}`, params), { headers: { 'content-type': 'text/html; charset=utf-8' } })
    }
    for (const r of ([] as string[]).concat(entry.route)) app.route(entry.method.toUpperCase(), r === '/' ? '' : r, page, hidden)
    app.get('/', page, hidden)
    app.get(`${statics.route}/*`, async ({ params }) => {
      const notFound = new Response('Not found', { status: 404 })
      // Only files inside bull-board's static folder: a path that resolves outside is not found.
      const file = resolve(statics.path, (params as Record<string, string>)['*'] ?? '')
      if (!file.startsWith(statics.path + sep)) return notFound
      // A name the file system refuses (too long, a NUL byte) is a file that is not there:
      // read it whole here, so no error can escape later while the answer streams.
      try {
        const f = Bun.file(file)
        if (!(await f.exists())) return notFound
        return new Response(await f.arrayBuffer(), { headers: { 'cache-control': 'no-store', 'content-type': f.type } })
      } catch {
        return notFound
      }
    }, hidden)
    // Any other path under the board answers 404 only to a platform admin, as the board's own routes do.
    app.all('/*', () => {
      throw new NotFoundError()
    }, hidden)
    return app
  }
}
