// Bare Bun.serve answering the same JSON as bare.ts, in a process that has loaded some of Slipway's
// code and run none of it (scripts/bench/health-tail.ts): what code alone costs the engine's
// collections. BARE_LOAD picks how much (default `all`):
// - `libs`: only the npm libraries a serving Slipway loads at start (Elysia, TypeBox, drizzle, libSQL's local client, ipaddr.js);
// - `half`: those and the faces of half of the modules (src/modules/<name>/index.ts, the first twelve by name, and what they import);
// - `all`: src/main.ts and everything it imports;
// - `app`: `all`, and the app built as Slipway's server builds it (deps, createApp), kept alive, not served;
// - `served`: `app`, served as src/main.ts serves it (bunFetch, its server routes: /health is Slipway's own answer), with
//   nothing else of main (no bootstrap admin, job runner or background start).
// BARE_STATEMENTS adds kept prepared statements (below).
// It prints the modules loaded and the heap after a full collection (`ready … modules … heap …`).
import { heapStats } from 'bun:jsc'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const LIBS = ['elysia', '@sinclair/typebox', '@sinclair/typebox/value', '@sinclair/typebox/compiler', '@sinclair/typebox/errors', 'drizzle-orm',
  'drizzle-orm/sqlite-core', 'drizzle-orm/libsql', 'drizzle-orm/libsql/sqlite3', 'drizzle-orm/libsql/migrator', 'drizzle-orm/batch', '@libsql/client/sqlite3',
  'libsql', 'ipaddr.js']
const load = process.env.BARE_LOAD ?? 'all'
const src = join(import.meta.dir, '../../../src')
if (load !== 'none') for (const lib of LIBS) await import(lib)
if (load === 'half') {
  const modules = readdirSync(join(src, 'modules')).sort()
  for (const m of modules.slice(0, Math.ceil(modules.length / 2))) await import(join(src, 'modules', m, 'index.ts'))
}
if (load === 'all' || load === 'app' || load === 'served') await import(join(src, 'main.ts'))
let served: ReturnType<typeof import('../../../src/app').bunFetch> | undefined
if (load === 'app' || load === 'served') {
  const { configOrExit } = await import(join(src, 'cli.ts'))
  const { buildDeps } = await import(join(src, 'deps.ts'))
  const { applyMigrations } = await import(join(src, 'db/migrate.ts'))
  const { bunFetch, createApp } = await import(join(src, 'app.ts'))
  const deps = await buildDeps(configOrExit(), { migrate: applyMigrations })
  const app = createApp(deps, {})
  // kept alive, as a serving process keeps its app
  ;(globalThis as { benchApp?: unknown }).benchApp = app
  if (load === 'served') served = bunFetch(app)
}
// BARE_STATEMENTS=N: also N distinct libSQL statements prepared on a local database and kept, as src/db/statement-cache.ts keeps them
const statements = Number(process.env.BARE_STATEMENTS ?? 0)
if (statements) {
  const Database = (await import('libsql')).default
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT)')
  ;(globalThis as { benchStatements?: unknown }).benchStatements = Array.from({ length: statements }, (_, i) => db.prepare(`SELECT id, a, b, ${i} AS n FROM t WHERE id = ?`))
}
Bun.gc(true)
const heap = heapStats()
const server = served
  ? Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: served, routes: served.routes })
  : Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: () => Response.json({ status: 'ok' }) })
console.log(`ready ${server.port} load ${load} modules ${Object.keys(require.cache).length} heap ${(heap.heapSize / 1e6).toFixed(1)} MB cells ${heap.objectCount}`)
