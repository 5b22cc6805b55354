/**
 * The bank ramp simulator's state expires and is bounded per account (src/sandbox/bank-ramp/store.ts):
 * quotes (form sessions) were dropped only by a sell, so 64,000 of them grew the process by 70 MB.
 */
import { expect, test } from 'bun:test'
import { createBankRampSimulator } from '@/sandbox/bank-ramp/app'
import { DEFAULT_LIMITS } from '@/sandbox/bank-ramp/state'

const BASE = 'http://sim.test'
const SEPA_DE = '0b5e1c9a-7d3f-4e21-9c4a-000000000001'

function world() {
  let clock = Date.parse('2026-11-20T10:00:00Z')
  const sim = createBankRampSimulator({
    accounts: (k) => (k.startsWith('key-') ? { id: k.slice(4) } : null),
    publicUrl: () => BASE,
    now: () => clock,
  })
  const call = async (account: string, method: string, path: string, body?: unknown) => {
    const res = await sim.fetch(new Request(`${BASE}${path}`, {
      method, headers: { 'x-api-key': `key-${account}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    }))
    return { status: res.status, body: await res.json().catch(() => null) as any }
  }
  const approvedCustomer = async (account: string, customerId: string) => {
    const { body } = await call(account, 'POST', `/v1/onboarding/${customerId}`, { ReturnURL: 'https://app.test/back', FiatOptions: [{ FiatCurrencyCode: 'EUR' }] })
    const page = new URL(body.HostedURL).pathname
    await sim.fetch(new Request(`${BASE}${page}`))
    await sim.fetch(new Request(`${BASE}${page}/decision`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' }))
  }
  const quote = async (account: string, customerId: string) => {
    const res = await call(account, 'POST', '/v1/transactions/sell/prepare', {
      ChannelID: SEPA_DE, CryptoCurrency: 'USDC', FiatAmount: '100', CustomerID: customerId, Form: { AccountHolderName: 'Alice', IBAN: 'DE89370400440532013000' },
    })
    expect(res.status).toBe(200)
    return res.body as { FormSessionID: string; CryptoAuthorizedAmount: string }
  }
  const sell = (account: string, q: { FormSessionID: string; CryptoAuthorizedAmount: string }) =>
    call(account, 'POST', '/v1/transactions/sell', { CryptoCurrency: 'USDC', FiatAmount: '100', CryptoAuthorizedAmount: q.CryptoAuthorizedAmount, FormSessionID: q.FormSessionID, Nonce: crypto.randomUUID() })
  return { sim, call, approvedCustomer, quote, sell, advance: (ms: number) => { clock += ms } }
}

test('an account holds at most 1000 quotes: the oldest is forgotten (404 at sell), the newest still sells, other accounts keep theirs', async () => {
  const w = world()
  await w.approvedCustomer('a', 'c1')
  await w.approvedCustomer('b', 'c2')
  const other = await w.quote('b', 'c2')
  const cap = DEFAULT_LIMITS.formSessions.perAccount
  const first = await w.quote('a', 'c1')
  let last = first
  for (let i = 1; i <= cap; i++) last = await w.quote('a', 'c1')
  expect(w.sim.stats().formSessions).toBe(cap + 1)
  const refused = await w.sell('a', first)
  expect(refused.status).toBe(404)
  expect(refused.body.Type).toBe('ResourceNotFound')
  expect((await w.sell('a', last)).status).toBe(202)
  expect((await w.sell('b', other)).status).toBe(202)
  await w.sim.settle()
})

test('quotes and onboarding links expire: an expired quote is answered "expired" during the grace hour, then forgotten', async () => {
  const w = world()
  await w.approvedCustomer('a', 'c1')
  const quotes = []
  for (let i = 0; i < 20; i++) quotes.push(await w.quote('a', 'c1'))
  expect(w.sim.stats()).toMatchObject({ formSessions: 20, sessions: 1 })
  w.advance(30 * 60_000 + 1)
  const late = await w.sell('a', quotes[0]!)
  expect(late.status).toBe(400)
  expect(late.body.Extensions.Request.FormSessionID).toBe('expired')
  w.advance(3600_000)
  expect((await w.sell('a', quotes[1]!)).status).toBe(404)
  // the next write of the account drops its expired quotes from memory
  await w.quote('a', 'c1')
  expect(w.sim.stats().formSessions).toBe(1)
  // the onboarding link lives 24 hours (and the grace hour); a new one drops it
  w.advance(24 * 3600_000)
  await w.call('a', 'POST', '/v1/onboarding/c1', { ReturnURL: 'https://app.test/back', FiatOptions: [{ FiatCurrencyCode: 'EUR' }] })
  expect(w.sim.stats().sessions).toBe(1)
  // the customer is a record: still known
  expect((await w.call('a', 'GET', '/v1/customers/c1')).status).toBe(200)
})

test('expired entries go without a read: a write by any account sweeps every account once a minute', async () => {
  const w = world()
  await w.approvedCustomer('a', 'c1')
  await w.approvedCustomer('b', 'c2')
  for (let i = 0; i < 5; i++) await w.quote('a', 'c1')
  expect(w.sim.stats().formSessions).toBe(5)
  w.advance(2 * 3600_000)
  await w.quote('b', 'c2')
  // a's quotes are gone from memory although nothing of a's was read or written
  expect(w.sim.stats().formSessions).toBe(1)
})
