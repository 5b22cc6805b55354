/**
 * The HTTP API under Deno 2: `npm run start:deno`. The same app serves through
 * `Deno.serve`; the job queue (bunqueue) is Bun-only and runs in a worker process
 * (`SLIPWAY_ROLE=worker` under Bun) against the same database, reached through the outbox.
 */
import { migrate } from 'drizzle-orm/libsql/migrator'
import { fileURLToPath } from 'node:url'
import { createApp } from './app'
import { ConfigError, loadConfig } from './config'
import { buildDeps } from './deps'
import { setSocketIp } from './http/request-state'
import { ensureBootstrapAdmin } from './modules/auth'

declare const Deno: {
  serve(opts: {
    port: number
    hostname: string
    onListen?: (a: { hostname: string; port: number }) => void
  }, handler: (req: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>): { shutdown(): Promise<void> }
  addSignalListener(signal: string, fn: () => void): void
  exit(code: number): never
}

let config
try {
  config = loadConfig()
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message)
    Deno.exit(1)
  }
  throw err
}
if (config.role === 'worker') {
  console.error('SLIPWAY_ROLE=worker needs Bun (the job queue is Bun-only): run `npm start` for the worker')
  Deno.exit(1)
}
const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url))
const deps = await buildDeps(config, { migrate: (db) => migrate(db, { migrationsFolder }) })
if (config.bootstrapAdminUsername && config.bootstrapAdminPassword) {
  await ensureBootstrapAdmin(deps, config.bootstrapAdminUsername, config.bootstrapAdminPassword)
}
const app = createApp(deps)
const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  onListen: ({ hostname, port }) => {
    deps.logger.info('listening', { url: `http://${hostname}:${port}`, runtime: 'deno', role: 'api' })
    deps.logger.flush()
  },
}, (req, info) => {
  setSocketIp(req, info.remoteAddr.hostname)
  return app.fetch(req)
})
const stop = async () => {
  await server.shutdown()
  deps.database.close()
  deps.logger.flush()
  Deno.exit(0)
}
Deno.addSignalListener('SIGTERM', () => void stop())
Deno.addSignalListener('SIGINT', () => void stop())
