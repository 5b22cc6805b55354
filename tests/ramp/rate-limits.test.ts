/** The bank ramp's write routes are rate limited per client IP like the other groups' writes, and say so in the OpenAPI document. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '../helpers/app'

let t: TestApp
beforeAll(async () => { t = await makeApp() })
afterAll(() => t.close())

test('the 11th payout within a minute from one IP answers 429 with retry-after, before authentication is even looked at', async () => {
  const statuses: number[] = []
  let last: Response | undefined
  for (let i = 0; i < 11; i++) {
    last = await t.handle(new Request('http://slipway.test/v1/ramp/bank/payout/payouts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ quoteId: crypto.randomUUID(), isTestnet: true }) }))
    statuses.push(last.status)
  }
  expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true)
  expect(statuses[10]).toBe(429)
  expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(last!.headers.get('x-ratelimit-limit')).toBe('10')
})

test('every write route under /v1/ramp/bank (but the partner\'s webhook) has a limit, a 429 answer and the limit in its description', async () => {
  const doc = await (await t.handle(new Request('http://slipway.test/v1/docs/json'))).json() as { paths: Record<string, Record<string, any>> }
  const writes: string[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/ramp/bank/') || path.startsWith('/v1/ramp/bank/webhooks/')) continue
    for (const [method, op] of Object.entries(ops)) {
      if (!['post', 'put', 'patch', 'delete'].includes(method)) continue
      writes.push(`${method} ${path}`)
      expect({ route: `${method} ${path}`, limit: op['x-rate-limit'] }).toEqual({ route: `${method} ${path}`, limit: expect.stringMatching(/^\d+ per 60 s per client IP$/) })
      expect(op.responses['429']).toBeDefined()
      const max = String(op['x-rate-limit']).split(' ')[0]
      expect(op.description).toContain(`Rate limit: ${max} per minute per client IP`)
    }
  }
  expect(writes.length).toBeGreaterThanOrEqual(15)
})
