/** The request log never shows a token carried inside a path (the hosted KYC page's link is its only key). */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SECRET_PATHS, loggedPath } from '@/http/core'
import { createBankRampSimulator } from '@/sandbox/bank-ramp/app'
import { EMBEDDED_SIMULATOR_PATH } from '@/sandbox/bank-ramp/embedded'
import { makeApp, type TestApp } from '../helpers/app'

let t: TestApp
beforeAll(async () => { t = await makeApp() })
afterAll(() => t.close())

test('the hosted KYC page and its decision are logged with [redacted] in place of the token', async () => {
  const token = crypto.randomUUID()
  await t.handle(new Request(`http://slipway.test/sandbox/bank-ramp/onboarding/${token}`))
  await t.handle(new Request(`http://slipway.test/sandbox/bank-ramp/onboarding/${token}/decision`, { method: 'POST', body: 'decision=approve', headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
  t.deps.logger.flush()
  const lines = t.logs.filter((l) => l.includes('/sandbox/bank-ramp/onboarding/'))
  expect(lines).toHaveLength(2)
  expect(lines.join('\n')).not.toContain(token)
  expect(lines[0]).toContain('"/sandbox/bank-ramp/onboarding/[redacted]"')
  expect(lines[1]).toContain('"/sandbox/bank-ramp/onboarding/[redacted]/decision"')
})

test('paths without a secret are logged as they are', () => {
  expect(loggedPath('/v1/ramp/bank/payout/payouts')).toBe('/v1/ramp/bank/payout/payouts')
  expect(loggedPath('/sandbox/bank-ramp/v1/customers/c1')).toBe('/sandbox/bank-ramp/v1/customers/c1')
})

test('every route, Slipway\'s and the embedded simulator\'s, whose path has a token-like parameter is redacted in the log', () => {
  const sim = createBankRampSimulator({ accounts: () => null, publicUrl: () => '', basePath: EMBEDDED_SIMULATOR_PATH })
  const paths = [...t.app.routes.map((r) => r.path), ...sim.app.routes.map((r) => r.path)]
  // a parameter named after a credential, except identifiers (`:keyId` is an API key's id, not the key)
  const secret = paths.filter((p) => p.split('/').some((seg) => /^:[^/]*(token|secret|code|key|nonce)/i.test(seg) && !/Id$/.test(seg)))
  expect(secret.length).toBeGreaterThan(0)
  for (const p of secret) {
    const example = p.replace(/:[^/]+/g, 'SECRET-VALUE')
    expect({ route: p, logged: loggedPath(example).includes('SECRET-VALUE') }).toEqual({ route: p, logged: false })
  }
  expect(SECRET_PATHS.length).toBeGreaterThan(0)
})
