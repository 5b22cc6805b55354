/** Boot: config → deps → app → listen. Closes the database on SIGTERM/SIGINT. */
import { loadConfig, ConfigError } from './config'
import { buildDeps } from './deps'
import { applyMigrations } from './db/migrate'
import { bunFetch, createApp } from './app'
import { scalarScript } from './http/scalar-asset'
import { ensureBootstrapAdmin } from './modules/auth/service'
import { dirname, join } from 'node:path'
import { mkdirSync } from 'node:fs'
import { JobRunner } from './jobs/runner'
import { registerJobs } from './jobs/registry'

async function main() {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message)
      process.exit(1)
    }
    throw err
  }
  const deps = await buildDeps(config, { migrate: applyMigrations })
  if (config.bootstrapAdminUsername && config.bootstrapAdminPassword) {
    const result = await ensureBootstrapAdmin(deps, config.bootstrapAdminUsername, config.bootstrapAdminPassword)
    if (result === 'created') deps.logger.info('bootstrap admin created', { username: config.bootstrapAdminUsername })
  }
  let runner: JobRunner | undefined
  if (config.role !== 'api') {
    // The durable queue lives beside a file database; with :memory: it is in memory too.
    let dataPath: string | undefined
    if (config.databaseUrl.startsWith('file:')) {
      dataPath = join(dirname(config.databaseUrl.slice('file:'.length).split('?')[0]!), 'queue.sqlite')
      mkdirSync(dirname(dataPath), { recursive: true })
    }
    runner = registerJobs(new JobRunner(deps, { queueName: 'slipway', dataPath }))
    runner.start()
  }
  if (config.role === 'worker') {
    deps.logger.info('worker started', { role: config.role })
    deps.logger.flush()
  }
  const app = createApp(deps, { scalarScript })
  const server = Bun.serve({ port: config.port, hostname: config.host, fetch: bunFetch(app), maxRequestBodySize: 1024 * 1024 })
  deps.logger.info('listening', { url: `http://${server.hostname}:${server.port}`, publicBaseUrl: config.publicBaseUrl, role: config.role })
  deps.logger.flush()

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    deps.logger.info('shutting down', { signal })
    await server.stop()
    await runner?.stop()
    deps.database.close()
    deps.logger.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

await main()
