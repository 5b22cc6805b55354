/**
 * Each part's share of a server's idle memory (docs/operations.md, Memory): the parts are
 * loaded one after another in one process, from source, and the resident memory and the
 * JavaScript heap are read after a full collection before and after each. A library two
 * parts share is counted with the first to load it; a small negative figure is the collector
 * returning pages. Modules load in src/app.ts's order, each through its face (index.ts), then
 * the modules the app does not import itself.
 *
 *   bun scripts/bench/memory-parts.ts
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { heapSize } from 'bun:jsc'

const root = join(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'slipway-memparts-'))
process.env.DATABASE_URL = `file:${join(dir, 'slipway.db')}`
process.env.LOG_LEVEL = 'silent'

const rss = () => Number(readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024
function settled() {
  Bun.gc(true)
  Bun.gc(true)
  return { rss: rss(), heap: heapSize() / 1024 / 1024 }
}

const rows: Array<{ part: string; rss: number; heap: number }> = []
async function step(part: string, load: () => unknown) {
  const before = settled()
  await load()
  await Bun.sleep(50)
  const after = settled()
  rows.push({ part, rss: after.rss - before.rss, heap: after.heap - before.heap })
}

const appSource = readFileSync(join(root, 'src/app.ts'), 'utf8')
const inApp = [...new Set([...appSource.matchAll(/from '\.\/modules\/([\w-]+)'/g)].map((m) => m[1]!))]
const modules = [...inApp, ...readdirSync(join(root, 'src/modules')).filter((m) => !inApp.includes(m)).sort()]

// the first row: the process as it starts (the script itself loaded)
const start = settled()
rows.push({ part: "Bun's runtime, nothing imported", rss: start.rss, heap: start.heap })
await step('Elysia and TypeBox', () => import('../../src/http/integer'))
await step("drizzle-orm, @libsql/client and libSQL's native addon", () => Promise.all([import('drizzle-orm'), import('@libsql/client/sqlite3'), import('drizzle-orm/libsql/sqlite3')]))
await step('the core: config, deps (every adapter\'s code), the HTTP plumbing, the job runner', () => Promise.all([
  import('../../src/config'), import('../../src/deps'), import('../../src/http/core'), import('../../src/http/openapi'), import('../../src/jobs/runner'),
]))
for (const m of modules) await step(`module ${m}`, () => import(`../../src/modules/${m}/index.ts`))
await step('the services wiring (src/services.ts)', () => import('../../src/services'))
await step('the app file and the sandboxes', () => import('../../src/app'))
const { loadConfig } = await import('../../src/config')
const { buildDeps } = await import('../../src/deps')
const { applyMigrations } = await import('../../src/db/migrate')
const { createApp } = await import('../../src/app')
let deps: Awaited<ReturnType<typeof buildDeps>> | undefined
let app: ReturnType<typeof createApp> | undefined
await step('buildDeps: the database opened and migrated, the adapters and sandboxes built', async () => {
  deps = await buildDeps(loadConfig(), { migrate: applyMigrations })
})
await step('createApp: every route registered', () => {
  app = createApp(deps!)
})
await step('the first /health answered', () => app!.handle(new Request('http://localhost/health')))

const total = settled()
console.log('| loaded, in this order | resident MiB added | JavaScript heap MiB added |\n| --- | --- | --- |')
for (const r of rows) console.log(`| ${r.part} | ${r.rss.toFixed(1)} | ${r.heap.toFixed(1)} |`)
const mods = rows.filter((r) => r.part.startsWith('module '))
console.log(`\nmodules in all: ${mods.reduce((a, r) => a + r.rss, 0).toFixed(1)} MiB resident, ${mods.reduce((a, r) => a + r.heap, 0).toFixed(1)} MiB heap; `
  + `the process at the end: ${total.rss.toFixed(1)} MiB resident, ${total.heap.toFixed(1)} MiB heap`)
deps?.database.close()
rmSync(dir, { recursive: true, force: true })
