/** Sandbox partners under NODE_ENV=production: off unless the operator opts in (src/sandbox/policy.ts). */
import { afterAll, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '@/config'
import { makeApp, type TestApp } from '../helpers/app'

const base = { DATABASE_URL: ':memory:', MASTER_KEY: Buffer.alloc(32, 7).toString('base64') }
const apps: TestApp[] = []
afterAll(async () => { for (const a of apps) await a.close() })

test('outside production the bank ramp simulator runs unless BANK_RAMP_SIMULATOR=off', () => {
  expect(loadConfig(base).bankRampSimulator).toBe('embedded')
  expect(loadConfig({ ...base, NODE_ENV: 'test', BANK_RAMP_SIMULATOR: 'off' }).bankRampSimulator).toBe('off')
})

test('under NODE_ENV=production the bank ramp simulator is off by default', () => {
  expect(loadConfig({ ...base, NODE_ENV: 'production' }).bankRampSimulator).toBe('off')
})

test('under production, BANK_RAMP_SIMULATOR=embedded without the opt-in stops start-up naming SANDBOX_IN_PRODUCTION', () => {
  let err: unknown
  try {
    loadConfig({ ...base, NODE_ENV: 'production', BANK_RAMP_SIMULATOR: 'embedded' })
  } catch (e) {
    err = e
  }
  expect(err).toBeInstanceOf(ConfigError)
  expect((err as Error).message).toContain('BANK_RAMP_SIMULATOR=embedded')
  expect((err as Error).message).toContain('SANDBOX_IN_PRODUCTION=true')
})

test('SANDBOX_IN_PRODUCTION=true opts in: the sandbox runs as it would outside production; a bad value is refused', () => {
  expect(loadConfig({ ...base, NODE_ENV: 'production', SANDBOX_IN_PRODUCTION: 'true' }).bankRampSimulator).toBe('embedded')
  expect(loadConfig({ ...base, NODE_ENV: 'production', SANDBOX_IN_PRODUCTION: 'true', BANK_RAMP_SIMULATOR: 'off' }).bankRampSimulator).toBe('off')
  expect(() => loadConfig({ ...base, SANDBOX_IN_PRODUCTION: 'yes' })).toThrow('SANDBOX_IN_PRODUCTION: "yes" is not true or false')
})

test('a production app does not serve /sandbox/bank-ramp', async () => {
  const t = await makeApp({ env: { NODE_ENV: 'production' } })
  apps.push(t)
  expect(t.deps.bankRampSimulator).toBeUndefined()
  const res = await t.handle(new Request('http://slipway.test/sandbox/bank-ramp/v1/customers/c1', { headers: { 'x-api-key': 'anything' } }))
  expect(res.status).toBe(404)
})

test('the card onramp sandbox provider: on outside production, off under it unless opted in, and then not served', async () => {
  expect(loadConfig(base).cardOnrampSandbox).toBe('embedded')
  expect(loadConfig({ ...base, NODE_ENV: 'production' }).cardOnrampSandbox).toBe('off')
  expect(() => loadConfig({ ...base, NODE_ENV: 'production', CARD_ONRAMP_SANDBOX: 'embedded' })).toThrow('SANDBOX_IN_PRODUCTION=true')
  expect(loadConfig({ ...base, NODE_ENV: 'production', SANDBOX_IN_PRODUCTION: 'true' }).cardOnrampSandbox).toBe('embedded')
  const t = await makeApp({ env: { NODE_ENV: 'production' } })
  apps.push(t)
  expect(t.deps.cardOnrampSandbox).toBeUndefined()
  expect((await t.handle(new Request('http://slipway.test/sandbox/card-onramp/v1/crypto/onramp_sessions', { method: 'POST' }))).status).toBe(404)
})

test('a production app serves no sandbox partner and no sandbox route: every one answers 404', async () => {
  const t = await makeApp({ env: { NODE_ENV: 'production' } })
  apps.push(t)
  const paths = [
    ['GET', '/sandbox/bank-ramp/v1/customers/c1'],
    ['POST', '/sandbox/card-onramp/v1/crypto/onramp_sessions'],
    ['GET', '/sandbox/swap-aggregator/v1/quote?fromChain=100'],
    ['GET', '/sandbox/prices/api/v3/simple/price?ids=ethereum&vs_currencies=eur'],
    ['POST', '/v1/sandbox/faucet'],
  ] as const
  for (const [method, path] of paths) {
    const res = await t.handle(new Request(`http://slipway.test${path}`, { method }))
    expect({ path, status: res.status }).toEqual({ path, status: 404 })
  }
  // and the same app outside production serves them (the paths above are the real ones)
  const dev = await makeApp()
  apps.push(dev)
  expect((await dev.handle(new Request('http://slipway.test/sandbox/prices/api/v3/simple/price?ids=ethereum&vs_currencies=eur'))).status).not.toBe(404)
  expect((await dev.handle(new Request('http://slipway.test/sandbox/card-onramp/v1/crypto/onramp_sessions', { method: 'POST' }))).status).not.toBe(404)
})
