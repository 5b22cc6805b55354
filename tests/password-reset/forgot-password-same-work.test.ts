/**
 * forgot-password does the same work for every address (src/modules/password-reset/service.ts): the
 * per-address throttle and one outbox row; the account is looked up later, by the worker. So neither the
 * answer nor its timing can depend on whether the account exists.
 *
 * Checked as work, not as wall time: every statement the app runs while it answers (by its text), and the
 * main thread's CPU time. Wall time medians compared with a 25 ms tolerance measured 29 ms apart at load
 * 18, and could not have seen a few database statements more for a known address anyway. This app runs
 * without the job runner, so no worker's statements or CPU fall inside a request (the worker's half and
 * its mail: forgot-password.test.ts).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { dlopen, FFIType, ptr } from 'bun:ffi'
import Database from 'libsql'
import { makeApp, type ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, unique, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { resetOn } from './world'

let t: TestApp
let f: Factory
let tenant: Tenant
let user: SignedInUser

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant(resetOn())
  user = await f.user(tenant)
})
afterAll(async () => {
  await t.close()
  libc.close()
})

type Prepare = (this: unknown, sql: string) => unknown
const proto = Database.prototype as unknown as { prepare: Prepare }

/** The statements the app prepares while `fn` runs (@libsql/client and the native statements prepare one per run; the statement cache answers it). */
async function statementsOf(fn: () => Promise<void>): Promise<string[]> {
  const original = proto.prepare
  const seen: string[] = []
  proto.prepare = function (this: unknown, sql: string) {
    seen.push(sql)
    return original.call(this, sql)
  }
  try {
    await fn()
  } finally {
    proto.prepare = original
  }
  return seen
}

/**
 * CPU time of this thread (the one app.handle runs on), in ms, from clock_gettime(CLOCK_THREAD_CPUTIME_ID): it does
 * not grow while the thread waits for a core. (/proc/thread-self/schedstat and getrusage, which process.threadCpuUsage
 * reads, move by the scheduler's tick for a thread that is running: across a request of under 1 ms they often showed 0.)
 */
const libc = dlopen('libc.so.6', { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } })
const CLOCK_THREAD_CPUTIME_ID = 3
const timespec = new BigInt64Array(2)
const cpuMs = () => {
  if (libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, ptr(timespec)) !== 0) throw new Error('clock_gettime failed')
  return Number(timespec[0]) * 1000 + Number(timespec[1]) / 1e6
}

test('the same statements and the same CPU for an unknown address as for a known one; none reads the accounts', async () => {
  const ghost = `${unique('ghost')}@example.com`
  type Kind = 'known' | 'unknown'
  const statements: Record<Kind, string[][]> = { known: [], unknown: [] }
  const cpu: Record<Kind, number[]> = { known: [], unknown: [] }
  // one of each first, not counted: the first write finds its connection once (SELECT 1 AS slipway_connection_probe)
  for (let i = -1; i < 10; i++) {
    // alternating which goes first
    const pair: Array<[Kind, string]> = i % 2 ? [['unknown', ghost], ['known', user.email]] : [['known', user.email], ['unknown', ghost]]
    for (const [kind, email] of pair) {
      t.deps.rateLimiter.reset()
      ;(t.clock as ManualClock).advance(1000)
      let took = 0
      statements[kind].push(await statementsOf(async () => {
        const started = cpuMs()
        const res = await f.api.post('/v1/auth/forgot-password', { email }, { signedBy: tenant })
        took = cpuMs() - started
        expect(res.status).toBe(200)
      }))
      cpu[kind].push(took)
      if (i < 0) [statements[kind], cpu[kind]] = [[], []]
    }
  }
  const first = statements.known[0]!
  expect(first.some((sql) => /insert into "outbox"/i.test(sql))).toBe(true)
  for (const kind of ['known', 'unknown'] as const) for (const list of statements[kind]) expect(list, kind).toEqual(first)
  expect(first.filter((sql) => /\b(from|join|update|into)\s+"(users|user_identities|password_reset_tokens)"/i.test(sql))).toEqual([])

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const [known, unknown] = [median(cpu.known), median(cpu.unknown)]
  expect(Math.min(known, unknown)).toBeGreaterThan(0)
  console.log(`forgot-password CPU per request, median of 10: known ${known.toFixed(2)} ms, unknown ${unknown.toFixed(2)} ms`)
  // the same work costs the same CPU: within half the request's own cost (or 1 ms, for the thread clock's grain)
  expect(Math.abs(known - unknown)).toBeLessThan(Math.max(1, unknown / 2))
})
