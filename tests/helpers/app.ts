/**
 * A Slipway app on a fresh database for each test file (or test), reached in-process
 * with `app.handle(new Request(...))` or over real HTTP on 127.0.0.1.
 */
import { bunFetch, createApp, type App } from '@/app'
import { loadConfig } from '@/config'
import { buildDeps, type Deps } from '@/deps'
import { SERVER_MAX_REQUEST_BODY_SIZE } from '@/http/core'
import { applyMigrations } from '@/db/migrate'
import { ManualClock, type Clock } from '@/lib/clock'
import { createLogger, type Logger } from '@/lib/logger'
import { ensureBootstrapAdmin } from '@/modules/auth/service'
import { JobRunner } from '@/jobs/runner'
import { registerJobs } from '@/services'

export const ADMIN = { username: 'root', password: 'Root-Passw0rd' }
/** The keys every test app uses: a server process started with them reads the same tokens and sealed secrets. */
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789'
export const TEST_MASTER_KEY = Buffer.alloc(32, 7).toString('base64')

export interface TestApp {
  app: App
  deps: Deps
  clock: Clock
  /** lines the app logged, for tests that check what reaches the logs */
  logs: string[]
  runner?: JobRunner
  handle(req: Request): Promise<Response>
  close(): Promise<void>
}

export interface TestAppOptions {
  env?: Record<string, string>
  clock?: Clock
  /** create the bootstrap admin (default true) */
  admin?: boolean
  /** run the background job runner (in-memory queue, unique name per app) */
  jobs?: boolean
}

export async function makeApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    PUBLIC_BASE_URL: 'http://slipway.test',
    JWT_SECRET: TEST_JWT_SECRET,
    MASTER_KEY: TEST_MASTER_KEY,
    // the daily portfolio run reads every tenant's mainnet wallets: only the tests that want it turn it on
    PORTFOLIO_SNAPSHOTS: 'off',
    // the tests' MPC engine (tests/setup.ts)
    MPC_ENGINE: process.env.MPC_ENGINE,
    // argon2id's test cost (tests/setup.ts), refused under NODE_ENV=production: such an app runs at the production cost
    PASSWORD_HASH_MEMORY_KIB: opts.env?.NODE_ENV === 'production' ? undefined : process.env.PASSWORD_HASH_MEMORY_KIB,
    // the status job's first look (tests/setup.ts)
    TX_REFRESH_FIRST_MS: process.env.TX_REFRESH_FIRST_MS,
    ...opts.env,
  })
  const logs: string[] = []
  const logger: Logger = createLogger({ sink: { write: (chunk) => logs.push(...new TextDecoder().decode(chunk).split('\n').filter(Boolean)) } })
  const clock = opts.clock ?? new ManualClock(Date.now())
  const deps = await buildDeps(config, { clock, logger, migrate: applyMigrations })
  if (opts.admin !== false) await ensureBootstrapAdmin(deps, ADMIN.username, ADMIN.password)
  let runner: JobRunner | undefined
  if (opts.jobs) {
    runner = registerJobs(new JobRunner(deps, { queueName: `test-${crypto.randomUUID()}`, pollMs: 50 }))
    runner.start()
  }
  const app = createApp(deps, { queue: runner })
  return {
    app,
    deps,
    clock,
    logs,
    runner,
    handle: (req) => app.handle(req),
    close: async () => {
      await runner?.stop()
      logger.flush()
      deps.database.close()
    },
  }
}

export interface HttpServer {
  url: string
  stop(): Promise<void>
}

/** Serves the app over real HTTP on 127.0.0.1, on `port` or a free one. */
export function serve(t: TestApp, port = 0): HttpServer {
  const fetch = bunFetch(t.app)
  const server = Bun.serve({ hostname: '127.0.0.1', port, fetch, routes: fetch.routes, maxRequestBodySize: SERVER_MAX_REQUEST_BODY_SIZE })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

export { ManualClock }
