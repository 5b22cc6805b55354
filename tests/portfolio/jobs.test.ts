/**
 * The daily snapshots through the real job runner (outbox and bunqueue): a worker's start
 * schedules today's run, which records each tenant's users and schedules the next run at
 * 00:00 UTC; moving the clock to midnight runs it. Prices come from the embedded sandbox
 * provider (CoinGecko's protocol, in process), balances from a local EVM node.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, eq, like } from 'drizzle-orm'
import { parseEther, type Address } from 'viem'
import { outbox } from '@/jobs/schema'
import { portfolioDays } from '@/modules/portfolio/schema'
import { JobRunner } from '@/jobs/runner'
import { registerJobs } from '@/services'
import { SANDBOX_PRICES } from '@/sandbox/prices/provider'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { until } from '@tests/helpers/until'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const DAY1 = Date.UTC(2026, 10, 1)
const DAY2 = Date.UTC(2026, 10, 2)

let node: LocalChain
let t: TestApp
let f: Factory
let tenant: Tenant
let user: SignedInUser
let address: Address
let runner: JobRunner | undefined
const clock = () => t.clock as ManualClock

const days = () => t.deps.database.db.select().from(portfolioDays).where(and(eq(portfolioDays.tenantId, tenant.id), eq(portfolioDays.userId, user.id))).all()
const dailyRows = () => t.deps.database.db.select().from(outbox).where(like(outbox.id, 'portfolio.daily:%')).all()

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  await node.installMulticall3()
  // a worker that starts at 10:00 UTC on a day not recorded yet
  t = await makeApp({ clock: new ManualClock(DAY1 + 10 * 3600_000), env: { PORTFOLIO_SNAPSHOTS: 'daily', RPC_TIMEOUT_MS: '2000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { ethereum: node.url } } })
  user = await f.user(tenant)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum' }, { token: user.accessToken })
  expect(w.status).toBe(201)
  address = w.body.address
  await node.sendNative(address, parseEther('1'))
}, 60_000)
afterAll(async () => {
  await runner?.stop()
  await t?.close()
  await node?.stop()
})

describe('daily snapshots on the job runner', () => {
  test('the worker\'s start records today, schedules tomorrow\'s run at 00:00 UTC, and that run records tomorrow', async () => {
    expect(await dailyRows()).toEqual([])
    runner = registerJobs(new JobRunner(t.deps, { queueName: `test-${crypto.randomUUID()}`, pollMs: 50 }))
    runner.start()

    const first = await until(days, (d) => d.length === 1, 15_000)
    const eth = SANDBOX_PRICES.ethereum!
    expect(first[0]).toMatchObject({ day: '2026-11-01', recordedAt: DAY1 + 10 * 3600_000, totalEur: `${eth.eur}.00`, totalUsd: `${eth.usd}.00`, unpriced: 0, unreadWallets: 0 })
    const scheduled = await until(dailyRows, (r) => r.length === 2)
    // (a dispatched row's run_at is its claim's lease; its created_at is when it was scheduled)
    const byId = Object.fromEntries(scheduled.map((r) => [r.id, r]))
    expect(byId['portfolio.daily:2026-11-01']).toMatchObject({ createdAt: DAY1 + 10 * 3600_000, dispatchedAt: DAY1 + 10 * 3600_000 })
    expect(byId['portfolio.daily:2026-11-02']).toMatchObject({ runAt: DAY2, dispatchedAt: null })

    // the clock reaches midnight: the scheduled run records the new balance
    await node.sendNative(address, parseEther('1'))
    clock().set(DAY2)
    const both = await until(days, (d) => d.length === 2, 15_000)
    expect(both.find((d) => d.day === '2026-11-02')).toMatchObject({ recordedAt: DAY2, totalEur: `${2 * eth.eur}.00` })
    expect((await until(dailyRows, (r) => r.length === 3)).map((r) => r.id).sort()).toEqual(['portfolio.daily:2026-11-01', 'portfolio.daily:2026-11-02', 'portfolio.daily:2026-11-03'])
  })

  test('another worker starting the same day schedules nothing new: each day runs once', async () => {
    const second = registerJobs(new JobRunner(t.deps, { queueName: `test-${crypto.randomUUID()}`, pollMs: 50 }))
    second.start()
    await Bun.sleep(300)
    await second.stop()
    expect((await dailyRows()).map((r) => r.id).sort()).toEqual(['portfolio.daily:2026-11-01', 'portfolio.daily:2026-11-02', 'portfolio.daily:2026-11-03'])
    expect(await days()).toHaveLength(2)
  })
})

test('PORTFOLIO_SNAPSHOTS=off: a worker\'s start schedules no run', async () => {
  const quiet = await makeApp({ jobs: true })
  try {
    expect(quiet.deps.config.portfolioSnapshots).toBe('off')
    await Bun.sleep(200)
    expect(await quiet.deps.database.db.select().from(outbox).where(like(outbox.id, 'portfolio.%')).all()).toEqual([])
  } finally {
    await quiet.close()
  }
})
