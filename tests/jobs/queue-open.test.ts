/**
 * bunqueue opens with the first due job, not when the runner starts (src/jobs/runner.ts):
 * an idle process holds neither its code nor its file. A start that finds unfinished
 * jobs in the queue file opens it at once and runs them. Each step runs in a process of
 * its own: `bun test` shares one module cache (bunqueue is loaded by other files) and
 * bunqueue's embedded engine is one per process.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hasUnfinishedJobs } from '@/jobs/runner'

const root = join(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'slipway-queue-open-'))
const queueFile = join(dir, 'queue.sqlite')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A runner on a file database in `dir` whose `test.echo` handler logs each payload; the script's body follows. */
const runnerScript = (body: string) => `
import { loadConfig } from '@/config'
import { buildDeps } from '@/deps'
import { applyMigrations } from '@/db/migrate'
import { createLogger } from '@/lib/logger'
import { JobRunner } from '@/jobs/runner'
import { scheduleJob } from '@/jobs/outbox'
const bunqueueLoaded = () => Object.keys(require.cache).some((k) => k.includes('node_modules/bunqueue/'))
const config = loadConfig({ DATABASE_URL: 'file:${join(dir, 'app.db')}', JWT_SECRET: 'queue-open-jwt-secret-0123456789abcdef', MASTER_KEY: Buffer.alloc(32, 7).toString('base64') })
const deps = await buildDeps(config, { logger: createLogger({ sink: { write() {} } }), migrate: applyMigrations })
const ran = []
const runner = new JobRunner(deps, { queueName: 'slipway', dataPath: ${JSON.stringify(queueFile)}, pollMs: 20 })
  .register('test.echo', { handler: async (payload) => { ran.push(payload.n) } })
const until = async (cond, what) => { for (let i = 0; i < 1500 && !cond(); i++) await Bun.sleep(10); if (!cond()) throw new Error('timed out: ' + what) }
${body}
await runner.stop()
deps.database.close()
// bunqueue's embedded engine keeps timers of its own; the server exits the same way
process.exit(0)
`

async function run(body: string): Promise<Record<string, unknown>> {
  const proc = Bun.spawn([process.execPath, '-e', runnerScript(body)], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const line = out.trim().split('\n').at(-1) ?? ''
  expect({ code, line: line.startsWith('{') }, err).toEqual({ code: 0, line: true })
  return JSON.parse(line)
}

test('an idle runner does not open the queue; the first due job opens it and runs', async () => {
  const result = await run(`
runner.start()
await Bun.sleep(200)
const idle = { loaded: bunqueueLoaded(), opened: runner.opened, file: await Bun.file(${JSON.stringify(queueFile)}).exists(), counts: await runner.counts() }
await deps.database.write((tx) => scheduleJob(tx, { topic: 'test.echo', payload: { n: 1 } }, Date.now()))
await until(() => ran.length === 1, 'the first job')
console.log(JSON.stringify({ idle, after: { loaded: bunqueueLoaded(), opened: runner.opened, ran } }))
`)
  expect(result).toEqual({
    idle: { loaded: false, opened: false, file: false, counts: { outbox: 0 } },
    after: { loaded: true, opened: true, ran: [1] },
  })
  // every job of the file is finished: the next start has nothing to open the queue for
  expect(hasUnfinishedJobs(queueFile)).toBe(false)
}, 30_000)

test('a start that finds unfinished jobs in the queue file opens it at once and runs them', async () => {
  // A job left in the queue file, not in the outbox: delayed by 10 minutes, then the process stops. The next process
  // must open the queue at its start, long before the job is due (no outbox row is due to open it), whatever its start
  // takes on a busy machine; the job is then made due at once (bunqueue's promote) and must run. (The delay was 6 s,
  // then 1.5 s before that: a start at load 18 took longer, and the job ran before the check saw the queue open.)
  await run(`
runner.start()
await runner.open()
await runner.bunQueue.add('test.echo', { outboxId: 'left-1', topic: 'test.echo', tenantId: null, payload: { n: 2 } }, { jobId: 'left-1', durable: true, delay: 600_000 })
console.log(JSON.stringify({ ran }))
`)
  expect(hasUnfinishedJobs(queueFile)).toBe(true)
  const result = await run(`
runner.start()
// opened by the start itself: the job is not due for 10 minutes
await until(() => runner.opened, 'the queue opened at start')
const atStart = { ran: ran.length, delayed: (await runner.counts()).delayed }
await runner.bunQueue.promoteJob('left-1')
await until(() => ran.length === 1, 'the job left in the file')
console.log(JSON.stringify({ atStart, ran }))
`)
  expect(result).toEqual({ atStart: { ran: 0, delayed: 1 }, ran: [2] })
  expect(hasUnfinishedJobs(queueFile)).toBe(false)
}, 30_000)

test('a queue file that cannot be read as expected opens the queue at start', async () => {
  const odd = join(dir, 'not-a-queue.sqlite')
  await Bun.write(odd, 'not a database')
  expect(hasUnfinishedJobs(odd)).toBe(true)
  expect(hasUnfinishedJobs(join(dir, 'missing.sqlite'))).toBe(false)
  expect(hasUnfinishedJobs(undefined)).toBe(false)
})
