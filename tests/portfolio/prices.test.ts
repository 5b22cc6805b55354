/**
 * The price adapter against a fake CoinGecko over HTTP (its key header, its failures, its
 * numbers turned into exact text), the sandbox provider speaking the same protocol, the
 * configuration of both, which holdings get a price, and the exact arithmetic of values.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '@/config'
import { CoinGeckoPrices, decimalText, PRICES_DEFAULT_BASE_URL } from '@/adapters/prices/coingecko'
import { PriceProviderError } from '@/adapters/prices/port'
import { coinIdOf, PRICED_COINS } from '@/modules/portfolio/coins'
import { centsText, percentOf, toCents, valueOf } from '@/modules/portfolio/values'
import { createSandboxPrices, SANDBOX_PRICES } from '@/sandbox/prices/provider'
import { makeApp } from '@tests/helpers/app'
import { FakeCoinGecko } from '@tests/fakes/coingecko'

let cg: FakeCoinGecko
beforeAll(() => { cg = new FakeCoinGecko().start() })
afterAll(() => cg.stop())

describe('the CoinGecko adapter', () => {
  test('asks every id with eur and usd, sends the key in its header, and reads the answer as exact text', async () => {
    cg.mode = 'ok'
    cg.updatedAt = 1_795_600_000
    cg.prices = { 'ethereum': { eur: 3012.55, usd: 3250.1 }, 'shiba-inu': { eur: 0.00000812, usd: 1.2e-7 } }
    const prices = new CoinGeckoPrices(1000)
    const got = await prices.simplePrice({ baseUrl: cg.url, apiKey: 'cg-secret-key', apiKeyHeader: 'x-cg-pro-api-key' }, ['shiba-inu', 'ethereum', 'not-a-coin'], 1_795_600_100_000)
    expect(Object.fromEntries(got)).toEqual({
      'ethereum': { eur: '3012.55', usd: '3250.1', asOf: 1_795_600_000_000 },
      'shiba-inu': { eur: '0.00000812', usd: '0.00000012', asOf: 1_795_600_000_000 },
    })
    const req = cg.requests.at(-1)!
    expect(req).toMatchObject({ path: '/api/v3/simple/price', query: { ids: 'ethereum,not-a-coin,shiba-inu', vs_currencies: 'eur,usd', include_last_updated_at: 'true' }, proKey: 'cg-secret-key', demoKey: null })
  })

  test('each failure is a PriceProviderError that never carries the key', async () => {
    const prices = new CoinGeckoPrices(300)
    cg.slowMs = 1000
    for (const mode of ['server-error', 'rate-limited', 'garbage', 'slow'] as const) {
      cg.mode = mode
      const err = await prices.simplePrice({ baseUrl: cg.url, apiKey: 'cg-secret-key' }, ['ethereum'], Date.now()).then(() => null, (e) => e)
      expect(err, mode).toBeInstanceOf(PriceProviderError)
      expect(String(err.message), mode).not.toContain('cg-secret-key')
    }
    cg.mode = 'ok'
    const refused = await prices.simplePrice({ baseUrl: 'http://127.0.0.1:9/api/v3' }, ['ethereum'], Date.now()).then(() => null, (e) => e)
    expect(refused).toBeInstanceOf(PriceProviderError)
    expect(cg.requests.at(-2)?.demoKey).toBe('cg-secret-key')
  })

  test('numbers become exact decimal text, negative or odd values none', () => {
    expect(decimalText(3012.55)).toBe('3012.55')
    expect(decimalText(1)).toBe('1')
    expect(decimalText(0.1)).toBe('0.1')
    expect(decimalText(1.23e-7)).toBe('0.000000123')
    expect(decimalText(1.5e21)).toBe('1500000000000000000000')
    expect(decimalText(1e-20)).toBe('0')
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '3000', null]) expect(decimalText(bad)).toBeNull()
  })
})

describe('the sandbox provider', () => {
  test('speaks simple/price through the same adapter, with fixed prices and the app clock\'s time', async () => {
    const sandbox = createSandboxPrices({ publicBaseUrl: 'http://slipway.test', now: () => 1_795_600_000_000 })
    expect(sandbox.baseUrl).toBe('http://slipway.test/sandbox/prices/api/v3')
    const got = await new CoinGeckoPrices(1000).simplePrice({ baseUrl: sandbox.baseUrl, fetch: ((i: RequestInfo | URL, init?: RequestInit) => sandbox.fetch(new Request(i, init))) as typeof fetch }, [...PRICED_COINS, 'unknown'], 0)
    expect([...got.keys()].sort()).toEqual([...PRICED_COINS])
    expect(got.get('ethereum')).toEqual({ eur: String(SANDBOX_PRICES.ethereum!.eur), usd: String(SANDBOX_PRICES.ethereum!.usd), asOf: 0 })
    expect((await sandbox.fetch(new Request('http://slipway.test/sandbox/prices/api/v3/simple/price?vs_currencies=eur'))).status).toBe(400)
    expect((await sandbox.fetch(new Request('http://slipway.test/sandbox/prices/api/v3/coins/list'))).status).toBe(404)
  })

  test('is served under /sandbox/prices by a development app, and is not mounted when off', async () => {
    const dev = await makeApp()
    const off = await makeApp({ env: { PRICES_SANDBOX: 'off' } })
    try {
      const res = await dev.handle(new Request('http://slipway.test/sandbox/prices/api/v3/simple/price?ids=ethereum&vs_currencies=eur,usd'))
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ ethereum: { eur: SANDBOX_PRICES.ethereum!.eur, usd: SANDBOX_PRICES.ethereum!.usd } })
      expect(dev.deps.pricesEndpoint().baseUrl).toBe('http://slipway.test/sandbox/prices/api/v3')
      expect((await off.handle(new Request('http://slipway.test/sandbox/prices/api/v3/simple/price?ids=ethereum&vs_currencies=eur'))).status).toBe(404)
      expect(off.deps.pricesEndpoint()).toEqual({ baseUrl: PRICES_DEFAULT_BASE_URL })
    } finally {
      await dev.close()
      await off.close()
    }
  })
})

describe('configuration', () => {
  test('the sandbox runs by default outside production, and PRICES_BASE_URL wins over it', () => {
    expect(loadConfig({})).toMatchObject({ pricesSandbox: 'embedded', pricesApiKeyHeader: 'x-cg-demo-api-key', pricesTimeoutMs: 5000, portfolioSnapshots: 'daily' })
    expect(loadConfig({ PRICES_BASE_URL: 'https://pro-api.coingecko.com/api/v3/', PRICES_API_KEY: 'k', PRICES_API_KEY_HEADER: 'X-CG-PRO-API-KEY' }))
      .toMatchObject({ pricesBaseUrl: 'https://pro-api.coingecko.com/api/v3', pricesApiKey: 'k', pricesApiKeyHeader: 'x-cg-pro-api-key' })
  })

  test('under NODE_ENV=production the sandbox is off, and asking for it without SANDBOX_IN_PRODUCTION stops the start', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).pricesSandbox).toBe('off')
    expect(() => loadConfig({ NODE_ENV: 'production', PRICES_SANDBOX: 'embedded' })).toThrow(/PRICES_SANDBOX=embedded is refused under NODE_ENV=production/)
    expect(loadConfig({ NODE_ENV: 'production', PRICES_SANDBOX: 'embedded', SANDBOX_IN_PRODUCTION: 'true' }).pricesSandbox).toBe('embedded')
  })

  test('bad values are named by their variable', () => {
    let message = ''
    try {
      loadConfig({ PRICES_BASE_URL: 'ftp://prices', PRICES_TIMEOUT_MS: '5', PORTFOLIO_SNAPSHOTS: 'hourly', PRICES_SANDBOX: 'maybe', PRICES_API_KEY_HEADER: 'x key', PRICES_API_KEY: '' })
    } catch (err) {
      message = (err as Error).message
    }
    for (const name of ['PRICES_BASE_URL', 'PRICES_TIMEOUT_MS', 'PORTFOLIO_SNAPSHOTS', 'PRICES_SANDBOX', 'PRICES_API_KEY_HEADER']) expect(message).toContain(name)
  })
})

describe('which holdings have a price', () => {
  test('native coins by chain, seeded tokens by their mainnet address; a custom token named USDC has none', () => {
    expect(coinIdOf('ethereum', null)).toBe('ethereum')
    expect(coinIdOf('base', null)).toBe('ethereum')
    expect(coinIdOf('solana', null)).toBe('solana')
    expect(coinIdOf('ethereum', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')).toBe('usd-coin')
    expect(coinIdOf('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe('usd-coin')
    // base58 is case-sensitive: a mint that differs in case is another mint
    expect(coinIdOf('solana', 'epjfwdd5aufqssqem2qn1xzybapc8g4wegGkZwyTDt1v')).toBeNull()
    expect(coinIdOf('gnosis', '0xcB444e90D8198415266c6a2724b7900fb12FC56E')).toBe('monerium-eur-money')
    expect(coinIdOf('ethereum', '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001')).toBeNull()
    expect(coinIdOf('unknown-chain', null)).toBeNull()
  })
})

describe('values', () => {
  test('amounts times prices are exact, rounded to the cent once, half away from zero', () => {
    // 1.5 ETH at 3333.33 = 4999.995
    const v = valueOf(1_500_000_000_000_000_000n, 18, '3333.33')
    expect(v).toBe(4_999_995_000_000_000_000_000n)
    expect(centsText(toCents(v))).toBe('5000.00')
    expect(centsText(toCents(-v))).toBe('-5000.00')
    // a dust amount of a 6-decimal token
    expect(centsText(toCents(valueOf(1n, 6, '0.93')))).toBe('0.00')
    expect(centsText(toCents(valueOf(123_456_789n, 6, '0.999872')))).toBe('123.44')
    expect(centsText(-5n)).toBe('-0.05')
  })

  test('the change in percent has 2 decimals and needs a base above zero', () => {
    expect(percentOf(2090_00n, 3000_00n)).toBe(69.67)
    expect(percentOf(-1_00n, 3_00n)).toBe(-33.33)
    expect(percentOf(1_00n, 0n)).toBeNull()
  })
})
