/**
 * The set-up the gas sponsorship tests share: anvil as Ethereum (chain id 1) with EntryPoint
 * v0.8, Simple7702Account, SlipwayPaymaster and alto (tests/helpers/aa-node.ts), an app whose
 * BUNDLER_URL_ETHEREUM, PAYMASTER_ADDRESS_ETHEREUM and PAYMASTER_SIGNER_PRIVATE_KEY point at them,
 * served over HTTP on 127.0.0.1, and two tenants whose Ethereum RPC is the node.
 */
import { afterAll, beforeAll, expect } from 'bun:test'
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { entryPoint08Abi, entryPoint08Address } from 'viem/account-abstraction'
import { systemClock, type Clock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startAaNode, type AaNode } from '@tests/helpers/aa-node'
import { freePort } from '@tests/helpers/process'

export interface GasWorld {
  aa: AaNode
  t: TestApp
  http: HttpServer
  f: Factory
  tenant: Tenant
  other: Tenant
  admin: SignedInUser
  pub: ReturnType<typeof createPublicClient>
  deposit(): Promise<bigint>
  tokenBalance(a: Address): Promise<bigint>
  setPolicy(body: Record<string, unknown>, tenant?: Tenant): Promise<void>
}

/** `relay`: the app is served on a port chosen first, which MPC_RELAY_URL names (the MPC service party reaches the relay over HTTP). */
export function gasWorld(opts: { jobs?: boolean; env?: Record<string, string>; clock?: Clock; relay?: boolean } = {}): GasWorld {
  const w = {} as GasWorld
  beforeAll(async () => {
    w.aa = await startAaNode({ chainId: 1 })
    w.pub = createPublicClient({ chain: w.aa.signer.chain, transport: http(w.aa.node.url), pollingInterval: 100 })
    const port = opts.relay ? freePort() : undefined
    w.t = await makeApp({
      clock: opts.clock ?? systemClock, jobs: opts.jobs,
      env: {
        RPC_TIMEOUT_MS: '5000', BUNDLER_URL_ETHEREUM: w.aa.bundler.url, PAYMASTER_ADDRESS_ETHEREUM: w.aa.paymaster, PAYMASTER_SIGNER_PRIVATE_KEY: w.aa.paymasterSignerKey,
        ...(port ? { MPC_RELAY_URL: `http://127.0.0.1:${port}` } : {}),
        ...opts.env,
      },
    })
    w.http = serve(w.t, port)
    w.f = new Factory(w.t)
    w.tenant = await w.f.tenant({ chains: { rpc: { ethereum: w.aa.node.url } } })
    w.other = await w.f.tenant({ chains: { rpc: { ethereum: w.aa.node.url } } })
    w.admin = await w.f.tenantAdmin(w.tenant)
  }, 120_000)
  afterAll(async () => {
    w.http?.stop()
    await w.t?.close()
    await w.aa?.stop()
  })
  w.deposit = () => w.pub.readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'balanceOf', args: [w.aa.paymaster] })
  w.tokenBalance = (a) => w.pub.readContract({ address: w.aa.node.tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [a] })
  w.setPolicy = async (body, tenant = w.tenant) => {
    const token = tenant === w.tenant ? w.admin.accessToken : (await w.f.tenantAdmin(tenant)).accessToken
    const res = await w.f.api.put(`/v1/admin/tenants/${tenant.id}/gas-policies/ethereum`, body, { token })
    expect(res.status).toBe(200)
  }
  return w
}
