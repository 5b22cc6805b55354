/**
 * Webhook delivery benchmark: deliveries per second through the whole path (outbox →
 * bunqueue → signed POST → recorded), against a local receiver on 127.0.0.1, on a file
 * database; then the same signed POSTs sent directly with the same concurrency. The
 * difference per delivery is the queue's overhead (outbox row, dispatch, job, attempt record).
 *
 *   bun scripts/bench/webhooks.ts            (BENCH_N=2000 deliveries by default)
 */
import { applyMigrations } from '../../src/db/migrate'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'
import { buildDeps } from '../../src/deps'
import { JobRunner } from '../../src/jobs/runner'
import { registerJobs } from '../../src/services'
import { unixSeconds } from '../../src/lib/clock'
import { publishEvent } from '../../src/modules/webhooks/publish'
import { deliveryCountsByStatus, insertWebhook } from '../../src/modules/webhooks/repo'
import { sealSecret } from '../../src/modules/webhooks/secrets'
import { deliveryHeaders, newWebhookSecret, secretHint } from '../../src/modules/webhooks/signature'
import { attemptDelivery } from '../../src/modules/webhooks/transport'
import { target } from './lib'

const N = Number(process.env.BENCH_N ?? 2000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)

let received = 0
const receiver = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async (req) => { await req.arrayBuffer(); received++; return new Response(null, { status: 204 }) } })
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'))
const config = loadConfig({
  DATABASE_URL: `file:${join(dir, 'bench.db')}`,
  MASTER_KEY: Buffer.alloc(32, 3).toString('base64'),
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123',
  LOG_LEVEL: 'silent',
  WEBHOOK_DEV_ROUTES: `hooks.bench.test=http://127.0.0.1:${receiver.port}`,
})
const deps = await buildDeps(config, { migrate: applyMigrations })
const tenantId = crypto.randomUUID()
const webhookId = crypto.randomUUID()
const secret = newWebhookSecret()
const now = Date.now()
await deps.database.write((tx) => insertWebhook(tx, tenantId, {
  id: webhookId, environment: 'sandbox', url: 'https://hooks.bench.test/in', eventTypes: [], status: 'active',
  secretSealed: sealSecret(deps, tenantId, webhookId, secret), secretHint: secretHint(secret), createdAt: now, updatedAt: now,
}))

const data = { userId: crypto.randomUUID(), kycStatus: 'approved', onboardingStatus: 'completed', verificationStatus: 'Approved', regions: ['EU'], updatedAt: new Date().toISOString() }
const runner = registerJobs(new JobRunner(deps, { queueName: 'bench', dataPath: join(dir, 'queue.sqlite'), pollMs: 50, concurrency: CONCURRENCY }))
runner.start()
// bunqueue opens with the first due row (src/jobs/runner.ts): opened here, so its module load (about 50 ms of CPU) is not counted as delivery work
await runner.open()

const cpu0 = process.cpuUsage()
const t0 = performance.now()
for (let i = 0; i < N; i += 100) {
  await deps.database.write(async (tx) => {
    for (let j = i; j < Math.min(N, i + 100); j++) {
      await publishEvent(tx, { tenantId, environment: 'sandbox', type: 'ramp.kyc.updated', data, occurredAt: Date.now() }, Date.now())
    }
  })
}
const published = performance.now()
// Waits on the receiver's counter first, so the bench's own polling does not load the
// database (a count over every delivery each 20 ms was about 4% of the run's CPU), then
// until every delivery is recorded done.
while (received < N) await Bun.sleep(5)
for (;;) {
  const done = (await deliveryCountsByStatus(deps.database.db)).find((r) => r.status === 'done')
  if (Number(done?.n ?? 0) >= N) break
  await Bun.sleep(5)
}
const queued = performance.now() - t0
const cpuQueued = process.cpuUsage(cpu0)
await runner.stop()

// The same signed POSTs, sent straight from this process with the same concurrency.
const body = JSON.stringify({ id: 'evt_0', type: 'ramp.kyc.updated', environment: 'sandbox', data })
const t1 = performance.now()
let next = 0
await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
  while (next < N) {
    next++
    const id = `evt_${crypto.randomUUID().replace(/-/g, '')}`
    const out = await attemptDelivery(deps, 'https://hooks.bench.test/in', deliveryHeaders(secret, id, 'ramp.kyc.updated', unixSeconds(Date.now()), body), body)
    if (!out.ok) throw new Error(out.error ?? 'failed')
  }
}))
const direct = performance.now() - t1

const fmt = (n: number) => n.toFixed(1)
console.log(`webhook deliveries: ${N} to a local receiver, concurrency ${CONCURRENCY}, file database`)
console.log(`  through the queue: ${fmt(queued)} ms, ${fmt((N / queued) * 1000)} deliveries/s (publishing took ${fmt(published - t0)} ms)`)
console.log(`  CPU of this process while queued: ${fmt((cpuQueued.user + cpuQueued.system) / 1000)} ms, ${fmt((cpuQueued.user + cpuQueued.system) / N)} µs per delivery`)
console.log(`  direct POSTs:      ${fmt(direct)} ms, ${fmt((N / direct) * 1000)} deliveries/s`)
console.log(`  queue overhead:    ${fmt(((queued - direct) / N) * 1000)} µs per delivery (wall clock, same concurrency)`)
console.log(`  receiver got ${received} requests`)
/** Issue 42: deliveries per second through the durable queue to a local receiver. */
const DELIVERY_TARGET = 2000
const rate = (N / queued) * 1000
target('webhook deliveries through the durable queue', `${rate.toFixed(0)} per s (direct POSTs from the same process: ${((N / direct) * 1000).toFixed(0)} per s)`, `≥ ${DELIVERY_TARGET} per s`, rate >= DELIVERY_TARGET)
deps.database.close()
receiver.stop(true)
rmSync(dir, { recursive: true, force: true })
process.exit(0)
