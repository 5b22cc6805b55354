/**
 * What the lending tests on the devnet share: the devnet's Sepolia node (with its Aave pool at
 * Aave's Sepolia Pool address, scripts/devnet/chain.ts) started in process on free ports, a
 * Slipway app served on 127.0.0.1 with the devnet's settings, two tenants, and the devnet's
 * funder key to give wallets gas and test USDC.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, parseAbi, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { DEVNET_AAVE_POOL, DEVNET_CHAIN_ID, DEVNET_KEYS, DEVNET_USDC, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { systemClock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

export interface LendingWorld {
  devnet: Devnet
  t: TestApp
  server: HttpServer
  api: Api
  f: Factory
  tenant: Tenant
  other: Tenant
  chain: ReturnType<typeof sepoliaClients>
  stop(): Promise<void>
}

const poolAbi = parseAbi([
  'function setLiquidityRate(address asset, uint128 liquidityRate)',
  'function getReserveData(address asset) view returns (((uint256) configuration, uint128 liquidityIndex, uint128 currentLiquidityRate, uint128 variableBorrowIndex, uint128 currentVariableBorrowRate, uint128 currentStableBorrowRate, uint40 lastUpdateTimestamp, uint16 id, address aTokenAddress, address stableDebtTokenAddress, address variableDebtTokenAddress, address interestRateStrategyAddress, uint128 accruedToTreasury, uint128 unbacked, uint128 isolationModeTotalDebt))',
])
const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])

export function sepoliaClients(url: string) {
  const chain = defineChain({ id: DEVNET_CHAIN_ID, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const pub = createPublicClient({ chain, transport: http(url) })
  const wallet = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEVNET_KEYS.funder) })
  const mined = async (hash: Hex) => {
    const r = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (r.status !== 'success') throw new Error(`reverted: ${hash}`)
  }
  return {
    pub, wallet, mined,
    usdc: (who: Address) => pub.readContract({ address: DEVNET_USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] }),
    aToken: async () => (await pub.readContract({ address: DEVNET_AAVE_POOL, abi: poolAbi, functionName: 'getReserveData', args: [DEVNET_USDC] })).aTokenAddress,
    tokenBalance: (token: Address, who: Address) => pub.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] }),
    /** 1 ETH of gas and `usdc` of the test USDC */
    async fund(to: Address, usdc: bigint) {
      await mined(await wallet.sendTransaction({ to, value: 10n ** 18n }))
      if (usdc > 0n) await mined(await wallet.writeContract({ address: DEVNET_USDC, abi: mintAbi, functionName: 'mint', args: [to, usdc] }))
    },
    setRate: async (rate: bigint) => mined(await wallet.writeContract({ address: DEVNET_AAVE_POOL, abi: poolAbi, functionName: 'setLiquidityRate', args: [DEVNET_USDC, rate] })),
  }
}

/**
 * `dir`: the test file's temporary folder (removed by stop). `sepoliaRpc`: the address Slipway
 * reaches the node by, given the node's own (a fault proxy in front of it); the node's by default.
 */
export async function lendingWorld(dir: string, opts: { sepoliaRpc?: (nodeUrl: string) => Promise<string> } = {}): Promise<LendingWorld> {
  const devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  const rpc: Record<string, string> = opts.sepoliaRpc ? { RPC_URL_SEPOLIA: await opts.sepoliaRpc(devnet.url) } : {}
  // TRUSTED_PROXIES: each test names its own client address (X-Forwarded-For), so its rate-limit buckets are its own
  const t = await makeApp({ clock: systemClock, jobs: true, env: { ...devnet.env, ...rpc, RPC_TIMEOUT_MS: '3000', TRUSTED_PROXIES: '127.0.0.1', AAVE_RATE_SAMPLE_SECONDS: '1' } })
  const server = serve(t)
  const api = new Api(server.url)
  const f = new Factory(t, api)
  const [tenant, other] = [await f.tenant(), await f.tenant()]
  return {
    devnet, t, server, api, f, tenant, other, chain: sepoliaClients(devnet.url),
    async stop() {
      await server.stop()
      await t.close()
      await devnet.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

let ipCounter = 0
/** a client address of its own (X-Forwarded-For) for each caller: the lending writes allow 5 per minute per IP */
export const freshIp = () => `198.51.100.${++ipCounter}`

/** the timestamps signed with, kept while inside the window: none is used twice */
const usedTimestamps = new Set<number>()
function freshTimestamp(): string {
  const now = Math.floor(Date.now() / 1000)
  for (const t of usedTimestamps) if (t < now - 300) usedTimestamps.delete(t)
  let t = now
  while (usedTimestamps.has(t)) t--
  usedTimestamps.add(t)
  return String(t)
}
/**
 * Both credentials: the tenant's signature and the user's bearer token, from `ip`. A signature
 * is accepted once (the spec), and a test repeats identical requests within a second (a
 * position read after each step), so each request is signed with a timestamp of its own,
 * the latest second not used yet (counting back from now; a few requests a second stay well inside
 * the 300-second window). Not counted back from a moment fixed when this module loaded: npm test's
 * workers keep modules across files (--no-isolate), and a lending file run minutes after the first
 * one signed outside the window (401 Request expired).
 */
export const both = (tenant: Tenant, u: SignedInUser, ip: string, extra: { headers?: Record<string, string>; timestamp?: string } = {}) => ({
  signedBy: tenant, token: u.accessToken, headers: { 'x-forwarded-for': ip, ...extra.headers },
  timestamp: extra.timestamp ?? freshTimestamp(),
})
