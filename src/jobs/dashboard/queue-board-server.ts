/**
 * bull-board's server side behind our Elysia app. `@bull-board/elysia` loads Elysia through
 * `require` (a second copy of the framework beside our ESM one) and registers its
 * routes asynchronously, which our app cannot mount; this adapter answers the same
 * routes itself: the page, bull-board's JSON API, and its static files.
 *
 * Loaded with the first request under the board's path (src/jobs/dashboard/routes.ts,
 * where the `adminBasic` check runs first): bull-board, ejs and lodash under them are
 * not held by a process whose operators never open the board.
 */
import { resolve, sep } from 'node:path'
import { NotFoundError } from 'elysia'
import { createBullBoard } from '@bull-board/api'
import ejs from 'ejs'
import type {
  AppControllerRoute, AppViewRoute, BullBoardQueues, ControllerHandlerReturnType, HTTPMethod, IServerAdapter, UIConfig,
} from '@bull-board/api/typings/app'
import { BunqueueBoardAdapter, type BunqueueReads } from './queue-board-adapter'

/** What a request under the board brings: its path below the board, and what Elysia parsed of it. */
export interface BoardRequest {
  method: string
  /** the path below the board's, as sent (not decoded): `/api/queues`, `/static/main.js`, `/` or empty */
  path: string
  query: Record<string, unknown>
  body: unknown
  headers: Record<string, string | undefined>
}

export interface BoardAnswer {
  status?: number
  body: unknown
}

interface Route {
  method: string
  segments: string[]
  answer: (params: Record<string, string>, req: BoardRequest) => Promise<BoardAnswer | Response>
}

/**
 * A route's segments against a path's: `:name` takes one segment (decoded), anything
 * else must be equal. Null when they differ.
 */
function matchSegments(pattern: string[], path: string[]): Record<string, string> | null {
  if (pattern.length !== path.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!
    if (p.startsWith(':')) {
      if (!path[i]) return null
      params[p.slice(1)] = path[i]!
    } else if (p !== path[i]) return null
  }
  return params
}

/** Where segments first differ, a fixed one wins over a parameter, as in Elysia's router. */
const specificity = (segments: string[]) => segments.map((s) => (s.startsWith(':') ? '0' : '1')).join('')

/** `/api/queues/` and `/api/queues` alike (as Elysia matches paths), `/` none. */
function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\//, '').replace(/\/$/, '')
  return trimmed === '' ? [] : trimmed.split('/')
}

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

  /**
   * The board's routes as one handler; call after createBullBoard configured this adapter.
   * It answers a request under the board, and throws NotFoundError for any other path.
   */
  handler(): (req: BoardRequest) => Promise<BoardAnswer | Response> {
    const { entry, statics, queues } = this
    if (!entry || !statics || !queues) throw new Error('createBullBoard must configure the adapter first')
    const routes: Route[] = []
    for (const { route, handler, method } of this.api) {
      for (const m of ([] as HTTPMethod[]).concat(method)) {
        for (const r of ([] as string[]).concat(route)) {
          routes.push({
            method: m.toUpperCase(),
            segments: splitPath(r),
            answer: async (params, req) => {
              try {
                const res = await handler({
                  queues,
                  uiConfig: this.uiConfig,
                  params,
                  query: req.query as Record<string, any>,
                  body: req.body as Record<string, any>,
                  headers: req.headers as Record<string, string>,
                })
                return { status: res.status, body: res.body }
              } catch (err) {
                const res = this.errorHandler?.(err as Error) ?? { status: 500, body: { error: 'Internal server error' } }
                return { status: res.status ?? 500, body: res.body }
              }
            },
          })
        }
      }
    }
    const page = async () => {
      const { name, params } = entry.handler({ basePath: this.basePath, uiConfig: this.uiConfig })
      return new Response(await ejs.renderFile(`${this.viewsPath}/${name}`, params), { headers: { 'content-type': 'text/html; charset=utf-8' } })
    }
    for (const r of ([] as string[]).concat(entry.route)) routes.push({ method: entry.method.toUpperCase(), segments: splitPath(r), answer: page })
    routes.sort((a, b) => (specificity(a.segments) < specificity(b.segments) ? 1 : specificity(a.segments) > specificity(b.segments) ? -1 : 0))
    const staticPrefix = `${statics.route}/`
    const notFound = () => new Response('Not found', { status: 404 })
    const staticFile = async (rest: string) => {
      // Only files inside bull-board's static folder: a path that resolves outside is not found.
      let file: string
      try {
        file = resolve(statics.path, decodeURIComponent(rest))
      } catch {
        return notFound()
      }
      if (!file.startsWith(statics.path + sep)) return notFound()
      // A name the file system refuses (too long, a NUL byte) is a file that is not there:
      // read it whole here, so no error can escape later while the answer streams.
      try {
        const f = Bun.file(file)
        if (!(await f.exists())) return notFound()
        return new Response(await f.arrayBuffer(), { headers: { 'cache-control': 'no-store', 'content-type': f.type } })
      } catch {
        return notFound()
      }
    }
    return async (req) => {
      if (req.method === 'GET' && req.path.startsWith(staticPrefix)) return staticFile(req.path.slice(staticPrefix.length))
      const segments = splitPath(req.path)
      for (const route of routes) {
        if (route.method !== req.method) continue
        const raw = matchSegments(route.segments, segments)
        if (!raw) continue
        let params: Record<string, string>
        try {
          params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, decodeURIComponent(v)]))
        } catch {
          // a parameter that is not valid percent-encoding names no queue or job
          throw new NotFoundError()
        }
        return route.answer(params, req)
      }
      // Any other path under the board answers 404 (only to a platform admin, as the board's own routes do).
      throw new NotFoundError()
    }
  }
}

/**
 * bull-board over this process's bunqueue queue, or null where bull-board's UI files are
 * not on disk: the compiled binary has no node_modules, and there /admin/queues falls
 * back to the read-only summary page.
 */
export function openQueueBoard(basePath: string, queue: () => BunqueueReads | undefined, label: string) {
  const board = new QueueBoardServer(basePath)
  try {
    createBullBoard({
      queues: [new BunqueueBoardAdapter(queue, label)],
      serverAdapter: board,
      options: { uiConfig: { boardTitle: 'Slipway queues', hideRedisDetails: true } },
    })
  } catch {
    return null
  }
  return board.handler()
}
