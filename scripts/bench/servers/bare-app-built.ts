// Bare Bun.serve answering the same JSON as bare.ts, in a process that has loaded Slipway's code (as
// bare-app-code.ts) and built part of what a start builds, kept alive and not used: BUILT=deps (the
// database opened and migrated, the services' dependencies) or BUILT=app (that and the app: its routes
// compiled). What the built state, beside the code, costs the engine's collections (scripts/bench/health-tail.ts).
import { loadConfig } from '../../../src/config'
import { buildDeps } from '../../../src/deps'
import { applyMigrations } from '../../../src/db/migrate'
import { createApp } from '../../../src/app'

await import('../../../src/main')
const deps = await buildDeps(loadConfig(process.env), { migrate: applyMigrations })
const kept: unknown[] = [deps]
if ((process.env.BUILT ?? 'app') === 'app') kept.push(createApp(deps))
;(globalThis as { keptForTheBench?: unknown }).keptForTheBench = kept
Bun.gc(true)
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: () => Response.json({ status: 'ok' }) })
console.log(`ready ${server.port}`)
