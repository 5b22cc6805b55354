/**
 * The swap aggregator adapter (src/adapters/swap-aggregator/lifi.ts) against the embedded
 * sandbox aggregator (src/sandbox/swap-aggregator) on the devnet, where executing a quote
 * moves real balances, and against a fake LI.FI (tests/fakes/lifi.ts) for every way the real
 * one can fail: each failure is a SwapAggregatorError of the port's kind, never a raw error
 * or a hang.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEVNET_CHIADO_CHAIN_ID, DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { gnosisClients, NATIVE } from '../devnet/gnosis'
import { FakeLifi } from '../fakes/lifi'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { LifiAggregator, LIFI_DEFAULT_BASE_URL } from '@/adapters/swap-aggregator/lifi'
import { SwapAggregatorError, type AggregatorQuoteRequest } from '@/adapters/swap-aggregator/port'
import { findToken, rateOf } from '@/sandbox/swap-aggregator/market'
import { createSandboxSwapAggregator } from '@/sandbox/swap-aggregator/embedded'
import { ConfigError, loadConfig } from '@/config'

const dir = mkdtempSync(join(tmpdir(), 'slipway-swap-aggregator-'))
let devnet: Devnet
let t: TestApp
const lifi = new FakeLifi().start()

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  t = await makeApp({ env: devnet.env })
}, 30_000)
afterAll(async () => {
  await t.close()
  await devnet.stop()
  lifi.stop()
  rmSync(dir, { recursive: true, force: true })
})

const request = (over: Partial<AggregatorQuoteRequest> = {}): AggregatorQuoteRequest => ({
  fromChain: DEVNET_CHIADO_CHAIN_ID, toChain: DEVNET_CHIADO_CHAIN_ID, fromToken: DEVNET_CHIADO_USDC, toToken: DEVNET_CHIADO_EURE, fromAmount: '25000000',
  fromAddress: privateKeyToAccount(generatePrivateKey()).address, toAddress: privateKeyToAccount(generatePrivateKey()).address, slippage: 0.005, ...over,
})
const failure = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(SwapAggregatorError)
  return err as SwapAggregatorError
}

describe('against the embedded sandbox aggregator on the devnet', () => {
  test('the module\'s endpoint is the sandbox in process; its quote, sent after approve, swaps USDC for EURe to toAddress', async () => {
    const endpoint = t.deps.swapAggregatorEndpoint()
    expect(endpoint.baseUrl).toBe(`${t.deps.config.publicBaseUrl}/sandbox/swap-aggregator/v1`)
    expect(endpoint.fetch).toBeDefined()
    // the testnets it quotes: the devnet's gnosis-chiado stand-in (LI.FI's endpoint names none, below)
    expect(endpoint.testnetChainIds).toEqual([10200])
    const payer = gnosisClients(devnet.chiadoUrl)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const step = await t.deps.swapAggregator.quote(endpoint, request({ fromAddress: payer.address, toAddress: to }))
    const rate = rateOf(findToken(DEVNET_CHIADO_CHAIN_ID, 'USDC')!, findToken(DEVNET_CHIADO_CHAIN_ID, 'EURe')!)
    const toAmount = 25_000_000n * rate.num / rate.den
    expect(step).toMatchObject({
      type: 'lifi', tool: 'sandbox-router',
      action: { fromChainId: 10200, toChainId: 10200, fromToken: { address: DEVNET_CHIADO_USDC, decimals: 6 }, toToken: { address: DEVNET_CHIADO_EURE, symbol: 'EURe', decimals: 18 }, fromAddress: payer.address, toAddress: to },
      estimate: { fromAmount: '25000000', toAmount: toAmount.toString(), toAmountMin: (toAmount * 995n / 1000n).toString(), approvalAddress: DEVNET_SWAP_ROUTER, executionDuration: 5 },
      transactionRequest: { to: DEVNET_SWAP_ROUTER, value: '0x0', chainId: 10200 },
    })
    expect(step.estimate!.gasCosts![0]).toMatchObject({ type: 'SEND', token: { address: NATIVE, symbol: 'xDAI' } })

    await payer.fund(DEVNET_CHIADO_USDC, 100_000_000n)
    await payer.approve(DEVNET_CHIADO_USDC, step.estimate!.approvalAddress as `0x${string}`, 25_000_000n)
    const tx = step.transactionRequest as { to: string; data: string; value: string; gasLimit: string; gasPrice: string }
    await payer.send(tx)
    expect(await payer.balance(DEVNET_CHIADO_USDC)).toBe(75_000_000n)
    expect(await payer.balance(DEVNET_CHIADO_EURE, to)).toBe(toAmount)
  }, 30_000)

  test('native xDAI to USDC: the quote carries the value and pays USDC to toAddress', async () => {
    const payer = gnosisClients(devnet.chiadoUrl)
    const to = privateKeyToAccount(generatePrivateKey()).address
    await payer.fund(null, 0n, 2n * 10n ** 18n)
    const step = await t.deps.swapAggregator.quote(t.deps.swapAggregatorEndpoint(), request({ fromToken: NATIVE, toToken: 'USDC', fromAmount: String(10n ** 18n), fromAddress: payer.address, toAddress: to }))
    expect(step.transactionRequest!.value).toBe(`0x${(10n ** 18n).toString(16)}`)
    await payer.send(step.transactionRequest as never)
    expect(await payer.balance(DEVNET_CHIADO_USDC, to)).toBe(1_000_000n)
    expect(await payer.balance(NATIVE)).toBeLessThan(10n ** 18n)
  }, 30_000)

  test('LI.FI\'s protocol over HTTP at /sandbox/swap-aggregator/v1/quote; an unknown pair or chain: 1002 (no_route); a malformed request: 400 (refused)', async () => {
    const q = new URLSearchParams({ fromChain: '10200', toChain: '10200', fromToken: 'EURe', toToken: NATIVE, fromAmount: '1000000000000000000', fromAddress: DEVNET_SWAP_ROUTER, toAddress: DEVNET_SWAP_ROUTER, slippage: '0.01' })
    const res = await t.handle(new Request(`http://slipway.test/sandbox/swap-aggregator/v1/quote?${q}`))
    expect(res.status).toBe(200)
    expect((await res.json()).estimate.toAmount).toBe('1080000000000000000')
    const endpoint = t.deps.swapAggregatorEndpoint()
    for (const over of [{ toToken: '0x00000000000000000000000000000000000000aa' }, { fromChain: 1, toChain: 1 }, { fromChain: 100, toChain: 100 }, { toChain: 1 }, { fromChain: 11155111, toChain: 11155111 }]) {
      const err = await failure(t.deps.swapAggregator.quote(endpoint, request(over)))
      expect({ over, kind: err.kind, code: err.code, status: err.status }).toEqual({ over, kind: 'no_route', code: 1002, status: 404 })
    }
    const bad = await failure(t.deps.swapAggregator.quote(endpoint, request({ fromAddress: 'nobody' })))
    expect(bad).toMatchObject({ kind: 'refused', status: 400, code: 1011 })
    expect(bad.message).toContain('fromAddress')
    const other = await t.handle(new Request('http://slipway.test/sandbox/swap-aggregator/v1/tokens'))
    expect(other.status).toBe(404)
    expect(await other.json()).toMatchObject({ code: 1003 })
  }, 30_000)

  test('the testnet chain ids it supports are the testnets among SANDBOX_SWAP_CHAINS (a mainnet id there is not one)', () => {
    const sandbox = createSandboxSwapAggregator({ publicBaseUrl: 'http://slipway.test', routerAddress: DEVNET_SWAP_ROUTER, chainIds: [100, 10200, 11155111] })
    expect(sandbox.testnetChainIds).toEqual([10200, 11155111])
    expect(createSandboxSwapAggregator({ publicBaseUrl: 'http://slipway.test', chainIds: [] }).testnetChainIds).toEqual([])
  })

  test('without the devnet\'s settings every quote is unavailable, saying to run npm run devnet', async () => {
    const bare = await makeApp()
    try {
      const err = await failure(bare.deps.swapAggregator.quote(bare.deps.swapAggregatorEndpoint(), request()))
      expect(err).toMatchObject({ kind: 'unavailable', status: 503, code: 1006 })
      expect(err.message).toContain('npm run devnet')
      const res = await bare.handle(new Request('http://slipway.test/sandbox/swap-aggregator/v1/quote'))
      expect(await res.json()).toEqual({ message: expect.stringContaining('npm run devnet'), code: 1006 })
    } finally {
      await bare.close()
    }
  }, 30_000)

  test('which aggregator: LIFI_BASE_URL set wins over the sandbox, with its key; under NODE_ENV=production the sandbox is not served and LI.FI is the default', async () => {
    const pointed = await makeApp({ env: { ...devnet.env, LIFI_BASE_URL: lifi.baseUrl, LIFI_API_KEY: 'k-123' } })
    try {
      expect(pointed.deps.swapAggregatorEndpoint()).toEqual({ baseUrl: lifi.baseUrl, apiKey: 'k-123' })
      // the sandbox is still served (other clients may use it), just not quoted from
      expect(pointed.deps.sandboxSwapAggregator).toBeDefined()
    } finally {
      await pointed.close()
    }
    const prod = await makeApp({ env: { NODE_ENV: 'production', ...devnet.env } })
    try {
      expect(prod.deps.sandboxSwapAggregator).toBeUndefined()
      expect(prod.deps.swapAggregatorEndpoint()).toEqual({ baseUrl: LIFI_DEFAULT_BASE_URL })
      const res = await prod.handle(new Request('http://slipway.test/sandbox/swap-aggregator/v1/quote'))
      expect(res.status).toBe(404)
      expect((await res.json()).code).toBeUndefined()
    } finally {
      await prod.close()
    }
    await expect(makeApp({ env: { NODE_ENV: 'production', SWAP_AGGREGATOR: 'embedded' } })).rejects.toThrow(/SWAP_AGGREGATOR=embedded is refused under NODE_ENV=production/)
  }, 30_000)
})

describe('configuration', () => {
  test('SWAP_AGGREGATOR follows the sandbox policy; defaults; bad values named; the API key never printed', () => {
    expect(loadConfig({})).toMatchObject({ swapAggregator: 'embedded', lifiBaseUrl: undefined, lifiApiKey: undefined, swapAggregatorTimeoutMs: 10_000, sandboxSwapChains: [] })
    expect(loadConfig({ NODE_ENV: 'production' }).swapAggregator).toBe('off')
    expect(loadConfig({ NODE_ENV: 'production', SANDBOX_IN_PRODUCTION: 'true' }).swapAggregator).toBe('embedded')
    expect(loadConfig({ SWAP_AGGREGATOR: 'off', LIFI_BASE_URL: 'https://li.quest/v1/', SANDBOX_SWAP_CHAINS: '100, 10200' })).toMatchObject({ swapAggregator: 'off', lifiBaseUrl: 'https://li.quest/v1', sandboxSwapChains: [100, 10200] })
    let err: unknown
    try {
      loadConfig({ SWAP_AGGREGATOR: 'maybe', LIFI_BASE_URL: 'ftp://x', SANDBOX_SWAP_CHAINS: 'gnosis', SWAP_AGGREGATOR_TIMEOUT_MS: '5', SANDBOX_SWAP_ROUTER_ADDRESS: '0x12', LIFI_API_KEY: 'very-secret-key' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const message = (err as Error).message
    for (const name of ['SWAP_AGGREGATOR (embedded or off)', 'LIFI_BASE_URL', 'SANDBOX_SWAP_CHAINS', 'SWAP_AGGREGATOR_TIMEOUT_MS', 'SANDBOX_SWAP_ROUTER_ADDRESS']) expect(message).toContain(name)
    expect(message).not.toContain('very-secret-key')
  })
})

describe('against a fake LI.FI', () => {
  // 2 s: the fake answers in this process, and on a busy machine its quick answers came near a 300 ms limit
  const adapter = new LifiAggregator(2000)
  const at = (apiKey?: string) => ({ baseUrl: lifi.baseUrl, ...(apiKey ? { apiKey } : {}) })

  test('GET /quote with every parameter in LI.FI\'s names, and x-lifi-api-key when a key is set (none without)', async () => {
    lifi.mode = 'ok'
    // gnosis mainnet, as LI.FI is asked (it quotes no testnet)
    const req = request({ fromChain: 100, toChain: 100 })
    const step = await adapter.quote(at('secret-key'), req)
    expect(step.estimate!.toAmountMin).toBe('915400000000000000')
    const seen = lifi.requests.at(-1)!
    expect(seen.path).toBe('/v1/quote')
    expect(seen.apiKey).toBe('secret-key')
    expect(seen.query).toEqual({ fromChain: '100', toChain: '100', fromToken: req.fromToken, toToken: req.toToken, fromAmount: '25000000', fromAddress: req.fromAddress, toAddress: req.toAddress, slippage: '0.005' })
    await adapter.quote(at(), req)
    expect(lifi.requests.at(-1)!.apiKey).toBeNull()
  })

  test('slower than the time limit: unavailable at the limit, not when LI.FI answers', async () => {
    lifi.mode = 'slow'
    const started = performance.now()
    const err = await failure(adapter.quote(at(), request()))
    const took = performance.now() - started
    expect(err.kind).toBe('unavailable')
    expect(err.message).toContain('in time')
    expect(took).toBeGreaterThanOrEqual(1990)
    // long before LI.FI's 10 s answer (the margin is for a busy machine)
    expect(took).toBeLessThan(7000)
  })

  test('an in-process endpoint that never answers (the sandbox reached through AggregatorEndpoint.fetch) is bounded by the same limit', async () => {
    const started = performance.now()
    const err = await failure(adapter.quote({ baseUrl: 'http://in-process.test/v1', fetch: (() => new Promise<Response>(() => {})) as unknown as typeof fetch }, request()))
    expect(err.kind).toBe('unavailable')
    expect(performance.now() - started).toBeLessThan(5000)
  })

  test('down (nothing listening): unavailable', async () => {
    const down = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
    const baseUrl = `http://127.0.0.1:${down.port}/v1`
    down.stop(true)
    const err = await failure(adapter.quote({ baseUrl }, request()))
    expect(err.kind).toBe('unavailable')
    expect(err.message).toContain('cannot be reached')
  })

  test('code 1002: no_route; a 400: refused with LI.FI\'s message; 500, 429, garbage or an incomplete step: unavailable', async () => {
    const cases: Array<[typeof lifi.mode, string, number | null, RegExp]> = [
      ['no-route', 'no_route', 1002, /No available quotes/],
      ['refused', 'refused', 1011, /^Invalid fromAddress: not an address$/],
      ['server-error', 'unavailable', 1006, /HTTP 500/],
      ['rate-limited', 'unavailable', 1005, /rate limiting/],
      ['garbage', 'unavailable', null, /unreadable/],
      ['incomplete', 'unavailable', null, /incomplete quote \(missing estimate\.toAmountMin, transactionRequest\.to, transactionRequest\.data, transactionRequest\.value, transactionRequest\.gasLimit\)/],
    ]
    for (const [mode, kind, code, message] of cases) {
      lifi.mode = mode
      const err = await failure(adapter.quote(at('secret-key'), request()))
      expect({ mode, kind: err.kind, code: err.code }).toEqual({ mode, kind, code } as never)
      expect(err.message).toMatch(message)
      expect(err.message).not.toContain('secret-key')
    }
    lifi.mode = 'ok'
  })
})
