/**
 * What the swap tests on the devnet share: the devnet's gnosis-chiado node started in process on free
 * ports, a Slipway app served on 127.0.0.1 with the devnet's settings (the embedded sandbox
 * aggregator quoting for the devnet's router), two tenants, and a funded account of the test's
 * that mints the open-mint tokens to wallets.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'bun:test'
import { parseAbi, type Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { DEVNET_CHIADO_EURE, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { gnosisClients, NATIVE } from '../devnet/gnosis'
import { systemClock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

export interface SwapWorld {
  devnet: Devnet
  t: TestApp
  server: HttpServer
  api: Api
  f: Factory
  tenant: Tenant
  other: Tenant
  chain: ReturnType<typeof gnosisClients>
  stop(): Promise<void>
}

/**
 * `dir`: the test file's temporary folder (removed by stop). `gnosisRpc`: the address Slipway
 * reaches the gnosis-chiado node by, given the node's own (a fault proxy in front of it); the node's by default.
 */
export async function swapWorld(dir: string, opts: {
  jobs?: boolean
  gnosisRpc?: (nodeUrl: string) => Promise<string>
  /** more of the app's environment, made once the nodes run (gas sponsorship on the gnosis-chiado node) */
  env?: (devnet: Devnet) => Promise<Record<string, string>>
} = {}): Promise<SwapWorld> {
  const devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  const rpc: Record<string, string> = opts.gnosisRpc ? { RPC_URL_GNOSIS_CHIADO: await opts.gnosisRpc(devnet.chiadoUrl) } : {}
  // TRUSTED_PROXIES: each rate-limit test names its own client address (X-Forwarded-For), so its bucket is its own
  const more = opts.env ? await opts.env(devnet) : {}
  const t = await makeApp({ clock: systemClock, jobs: opts.jobs, env: { ...devnet.env, ...rpc, RPC_TIMEOUT_MS: '3000', TRUSTED_PROXIES: '127.0.0.1', ...more } })
  const server = serve(t)
  const api = new Api(server.url)
  const f = new Factory(t, api)
  const [tenant, other] = [await f.tenant(), await f.tenant()]
  const chain = gnosisClients(devnet.chiadoUrl)
  await chain.fund(null, 0n, 10n ** 20n)
  return {
    devnet, t, server, api, f, tenant, other, chain,
    async stop() {
      await server.stop()
      await t.close()
      await devnet.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export const auth = (u: SignedInUser, headers?: Record<string, string>) => ({ token: u.accessToken, ...(headers ? { headers } : {}) })

const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])
/** Mints `amount` of an open-mint devnet token to `to`, and waits for it. */
export const mintTo = async (chain: SwapWorld['chain'], token: Address, to: Address, amount: bigint) =>
  chain.mined(await chain.wallet.writeContract({ address: token, abi: mintAbi, functionName: 'mint', args: [to, amount] } as never))

/** Helpers of the gasless swap tests (gasless.test.ts, gasless-relays.test.ts). */
export const EURE = 10n ** 18n

/** A quote body of `fromAmount` EURe (by default) to xDAI on gnosis: what has a `gasless` block. */
export const gaslessBody = (walletId: string, fromAmount = 10n * EURE, fromToken: Address = DEVNET_CHIADO_EURE, toToken: Address = NATIVE) =>
  ({ walletId, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken, toToken, fromAmount: fromAmount.toString() })

export async function quoteOf(api: Api, u: SignedInUser, body: Record<string, unknown>) {
  const res = await api.post('/v1/swap/quote', body, auth(u))
  expect(res.status).toBe(200)
  return res.body
}

/** A custodial gnosis wallet of the user's holding `eure` and no xDAI. */
export async function custodialGnosis(w: Pick<SwapWorld, 'api' | 'chain'>, u: SignedInUser, eure: bigint) {
  const res = await w.api.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth(u))
  expect(res.status).toBe(201)
  const wallet = res.body as { id: string; address: Address }
  if (eure > 0n) await mintTo(w.chain, DEVNET_CHIADO_EURE, wallet.address, eure)
  return wallet
}

/** `account` registered as the user's non-custodial gnosis wallet. */
export async function clientGnosis(api: Api, u: SignedInUser, account: PrivateKeyAccount) {
  const c = await api.get(`/v1/wallets/client/challenge?chain=gnosis-chiado&address=${account.address}`, auth(u))
  expect(c.status).toBe(200)
  const res = await api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature: await account.signMessage({ message: c.body.message }) }, auth(u))
  expect(res.status).toBe(201)
  return res.body as { id: string; address: Address }
}

/** The typed data sign-permit answers, as viem signs it (integers as bigint). */
export function typedDataOf(p: { typedData: any }) {
  const td = p.typedData
  return { ...td, message: { ...td.message, value: BigInt(td.message.value), nonce: BigInt(td.message.nonce), deadline: BigInt(td.message.deadline) } }
}
