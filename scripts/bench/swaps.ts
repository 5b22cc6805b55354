/**
 * Swap quote benchmark (issue 32): quotes per second through Slipway's `POST /v1/swap/quote`
 * against the sandbox aggregator's own rate (its `GET /sandbox/swap-aggregator/v1/quote`,
 * answered by the same Slipway process) in the same run, driven by wrk (1 thread, 64
 * connections, BENCH_SECONDS each), BENCH_ROUNDS rounds (3 by default) with the baseline and
 * the scenario alternating (lib.ts: each line is the median of its runs, the ratio the median
 * of the rounds' own ratios). And the resident memory the swap routes add: Slipway's RSS idle
 * (the swap module not loaded yet) against its RSS under quote load.
 *
 * The quote does what the aggregator's answer does not: the bearer check, the wallet and
 * registry lookups, the aggregator call (in process), the source chain's reads (allowance,
 * fees, balance: three JSON-RPC requests to the devnet's gnosis-chiado node, anvil, in its own
 * process) and the quote stored for execute (a write transaction). A second line
 * quotes EURe to xDAI, which adds the gasless block (the token's permit nonce, the fees).
 *
 *   bun scripts/bench/swaps.ts           (BENCH_SECONDS=5, BENCH_ROUNDS=3)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC, startDevnet } from '../devnet/chain'
import { benchEnv, benchUser, cpuMs, generatorVerdict, load, median, medianOf, medianWithMemory, report, requireWrk, rssDuring, rssMiB, spawnServer, type Result } from './lib'

requireWrk()
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-swaps-'))
const devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
const env = benchEnv(dir, devnet.env)
const slipway = await spawnServer(['src/index.ts'], env)
const bare = await spawnServer(['scripts/bench/servers/bare.ts'], env)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const NATIVE = '0x0000000000000000000000000000000000000000'

try {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(slipway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    return res.json() as Promise<any>
  }
  const { user } = await benchUser(slipway.url, 'bench')
  const auth = { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' }
  const rssIdle = await rssMiB(slipway.proc.pid)
  const wallet = await post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth)

  const quoteBody = (fromToken: string, toToken: string, fromAmount: string) => JSON.stringify({ walletId: wallet.id, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken, toToken, fromAmount })
  const usdcToEure = quoteBody(DEVNET_CHIADO_USDC, DEVNET_CHIADO_EURE, '25000000')
  const eureToXdai = quoteBody(DEVNET_CHIADO_EURE, NATIVE, '10000000000000000000')
  const check = await fetch(slipway.url + '/v1/swap/quote', { method: 'POST', headers: auth, body: eureToXdai })
  const checked = await check.json() as any
  if (check.status !== 200 || !checked.gasless) throw new Error(`the quote did not answer 200 with a gasless block: ${check.status} ${JSON.stringify(checked).slice(0, 300)}`)
  const params = new URLSearchParams({ fromChain: '10200', toChain: '10200', fromToken: DEVNET_CHIADO_USDC, toToken: DEVNET_CHIADO_EURE, fromAmount: '25000000', fromAddress: wallet.address, toAddress: wallet.address, slippage: '0.005' })
  const aggregatorUrl = `${slipway.url}/sandbox/swap-aggregator/v1/quote?${params}`
  const quoteLoad = (name: string, body: string) => load(name, slipway.url + '/v1/swap/quote', { method: 'POST', body, headers: auth, pid: slipway.proc.pid })

  // warm-up, unmeasured: the swap module and the chain libraries load with the first request
  await load('warm-up', aggregatorUrl, { seconds: 2 })
  await quoteLoad('warm-up', usdcToEure)
  const rounds: Array<{ aggregator: Result; quote: { result: Result; median: number; peak: number }; gasless: Result; nodeUs: number }> = []
  for (let k = 0; k < ROUNDS; k++) {
    const aggregator = await load('sandbox aggregator GET /v1/quote (direct)', aggregatorUrl, { pid: slipway.proc.pid })
    // the devnet's node runs in this process: its CPU time per quote is the chain reads' share
    const node0 = await cpuMs(devnet.pids.chiado)
    const quote = await rssDuring(slipway.proc.pid, quoteLoad('POST /v1/swap/quote USDC→EURe (bearer)', usdcToEure))
    const node1 = await cpuMs(devnet.pids.chiado)
    const requests = quote.result.rps * Number(process.env.BENCH_SECONDS ?? 5)
    const nodeUs = node0 !== undefined && node1 !== undefined && requests > 0 ? ((node1 - node0) * 1000) / requests : NaN
    const gasless = await quoteLoad('POST /v1/swap/quote EURe→xDAI (+ gasless block)', eureToXdai)
    rounds.push({ aggregator, quote, gasless, nodeUs })
  }
  const rBare = await load('bare Bun.serve', bare.url + '/health', { pid: bare.proc.pid })
  const valid = generatorVerdict(rBare)
  const rAgg = medianOf(rounds.map((r) => r.aggregator))
  const quote = medianWithMemory(rounds.map((r) => r.quote))
  const rGasless = medianOf(rounds.map((r) => r.gasless))
  const met = report([
    { result: rBare },
    { result: rAgg },
    { result: quote.result, baseline: rAgg, target: 0.8, rounds: rounds.map((r) => [r.aggregator, r.quote.result] as const) },
    { result: rGasless, baseline: rAgg, rounds: rounds.map((r) => [r.aggregator, r.gasless] as const) },
  ])
  console.log(`\nRound by round, USDC→EURe quotes: ${rounds.map((r) => `${r.quote.result.rps.toFixed(0)} req/s, ${r.quote.result.cpuUs?.toFixed(0)} µs CPU`).join('; ')}`)
  console.log(`The devnet's gnosis-chiado node (anvil, in its own process) spent ${median(rounds.map((r) => r.nodeUs)).toFixed(0)} µs of CPU per USDC→EURe quote on its three JSON-RPC requests (median of the rounds), beside Slipway's own CPU per quote in the table.`)
  console.log(`Slipway resident memory (bun src/index.ts): ${rssIdle?.toFixed(0)} MiB idle (swap module not loaded); under quote load median ${quote.median.toFixed(0)}, peak ${quote.peak.toFixed(0)} MiB: the swap routes add ${(quote.median - (rssIdle ?? NaN)).toFixed(0)} MiB (median), ${(quote.peak - (rssIdle ?? NaN)).toFixed(0)} MiB at peak`)
  if (!valid) process.exitCode = 1
  else if (!met) console.log('\nThe quote target (≥ 80% of the aggregator\'s own rate) is NOT met (see the table).')
} finally {
  slipway.proc.kill()
  bare.proc.kill()
  await devnet.stop()
  rmSync(dir, { recursive: true, force: true })
}
