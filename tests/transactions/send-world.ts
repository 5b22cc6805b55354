/**
 * The set-up tests/transactions/idempotency.test.ts and tests/transactions/idempotency-faults.test.ts
 * share: an anvil mainnet node, an app on the system clock (RPC calls time out after 3 s), and a
 * tenant whose Ethereum RPC is the node, or with `proxied` a JSON-RPC fault proxy before it
 * (tests/helpers/rpc-fault-proxy.ts). `sendWorld` registers the file's beforeAll and afterAll, and
 * answers the handles (set once beforeAll ran) and `funded`.
 */
import { afterAll, beforeAll } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startRpcFaultProxy, type RpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { custodialWallet, reader } from './helpers'

export interface SendWorld {
  node: LocalChain
  /** before the node, with `proxied` only */
  proxy: RpcFaultProxy
  t: TestApp
  f: Factory
  tenant: Tenant
  /** reads the node itself */
  chain: ReturnType<typeof reader>
  /** A custodial Ethereum wallet of the user's, holding 1 ETH. */
  funded(u: SignedInUser): Promise<{ id: string; address: Address }>
}

export function sendWorld(opts: { proxied?: boolean } = {}): SendWorld {
  const s = {} as SendWorld
  beforeAll(async () => {
    s.node = await startLocalChain({ chainId: 1 })
    s.chain = reader(s.node.url)
    if (opts.proxied) s.proxy = await startRpcFaultProxy(s.node.url)
    s.t = await makeApp({ clock: systemClock, env: { RPC_TIMEOUT_MS: '3000' } })
    s.f = new Factory(s.t)
    s.tenant = await s.f.tenant({ chains: { rpc: { ethereum: opts.proxied ? s.proxy.url : s.node.url } } })
  }, 30_000)
  afterAll(async () => {
    s.proxy?.stop()
    await s.t.close()
    await s.node.stop()
  })
  s.funded = async (u) => {
    const w = await custodialWallet(s.f.api, u)
    await s.node.sendNative(w.address, parseEther('1'))
    return w
  }
  return s
}
