/**
 * The set-up tests/ramp/payout-safety.test.ts and tests/ramp/payout-faults.test.ts share: payouts
 * over HTTP on anvil with real transfers, with a fault proxy of our own before each real part.
 * An anvil Sepolia chain with USDC placed; a ramp world whose partner simulator reads a sell's
 * transfer back from the chain before it pays out; the tenant's Sepolia RPC behind
 * tests/helpers/rpc-fault-proxy.ts and its bank ramp behind ./partner-proxy.ts.
 * `payoutFaultWorld` registers the file's beforeAll and afterAll, and answers the handles (set once
 * beforeAll ran) and the helpers the tests call.
 */
import { afterAll, beforeAll, expect } from 'bun:test'
import { parseEther, type Address } from 'viem'
import type { ApiResponse } from '@tests/helpers/client'
import type { SignedInUser } from '@tests/helpers/factories'
import { startRpcFaultProxy, type RpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { reader } from '@tests/transactions/helpers'
import type { ManualClock } from '@/lib/clock'
import { evmTransferVerifier } from '@/adapters/chain/transfer-check'
import { startPartnerProxy, type PartnerProxy } from './partner-proxy'
import { onboard, rampWorld, until, type RampTenant, type RampWorld } from './world'

export const USDC_SEPOLIA: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
/** The bank details a SEPA payout quote's form is filled with. */
export const filled = { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' }

export interface PayoutFaultWorld {
  chain: LocalChain
  w: RampWorld
  tenant: RampTenant
  /** Before the chain's JSON-RPC: faults on submissions (tests/helpers/rpc-fault-proxy.ts) */
  rpc: RpcFaultProxy
  /** Before the partner simulator: faults on sells (./partner-proxy.ts) */
  partner: PartnerProxy
  /** The SEPA payout channel, found by the first `payer` */
  channelId: string
  /** As the user, with an `Idempotency-Key` when `key` is given. */
  post(u: SignedInUser, path: string, body: unknown, key?: string): Promise<ApiResponse<any>>
  get(u: SignedInUser, path: string): Promise<ApiResponse<any>>
  /** The address's USDC on the chain, in units. */
  usdc(a: Address): Promise<bigint>
  /** Asserts the status with the body beside it, so a failure under a loaded suite says what was answered. */
  answered(res: { status: number; body: unknown }, status: number): void
  /** A KYC-approved user with a custodial Sepolia wallet holding `units` of USDC and 1 ETH. */
  payer(units: bigint): Promise<{ u: SignedInUser; wallet: { id: string; address: Address } }>
  /** Moves the app's clock a second at a time (its jobs run on it) until `done` holds for what `read` answers. */
  ticking<T>(read: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs?: number): Promise<T>
  /** The payout once its job has moved it on (by default: the sell asked for, or the payout ended). */
  advanced(u: SignedInUser, payoutId: string, done?: (p: Record<string, any>) => boolean): Promise<Record<string, any>>
}

/** `env`: the app's own (e.g. how a dropped transfer is resent). */
export function payoutFaultWorld(env: Record<string, string> = {}): PayoutFaultWorld {
  const s = {} as PayoutFaultWorld

  beforeAll(async () => {
    s.chain = await startLocalChain({ chainId: 11155111 })
    await s.chain.placeToken(USDC_SEPOLIA)
    // the simulator reads a sell's transfer back from the chain before it pays out
    s.w = await rampWorld({ app: { env }, sim: { verifier: evmTransferVerifier({ rpcUrl: s.chain.url, tokenAddress: USDC_SEPOLIA }) } })
    s.rpc = await startRpcFaultProxy(s.chain.url)
    s.partner = startPartnerProxy(s.w.sim.apiUrl)
    s.tenant = await s.w.rampTenant()
    const patch = await s.w.f.api.patch(`/v1/admin/tenants/${s.tenant.id}`, {
      chains: { rpc: { sepolia: s.rpc.url } },
      bankRamp: { sandbox: { connected: true, baseUrl: s.partner.url, apiKey: s.tenant.partnerKey, webhookKey: s.tenant.webhookKey } },
    }, { token: s.w.admin })
    expect(patch.status).toBe(200)
  }, 30_000)
  afterAll(async () => {
    s.rpc?.stop()
    s.partner?.stop()
    await s.w.stop()
    await s.chain.stop()
  })

  s.post = (u, path, body, key) =>
    s.w.f.api.post(path, body, { token: u.accessToken, headers: key === undefined ? {} : { 'idempotency-key': key } })
  s.get = (u, path) => s.w.f.api.get(path, { token: u.accessToken })
  s.usdc = (a) => reader(s.chain.url).tokenBalance(USDC_SEPOLIA, a)
  s.answered = (res, status) => {
    expect({ status: res.status, body: res.body }).toMatchObject({ status })
  }
  s.payer = async (units) => {
    const u = await s.w.f.user(s.tenant)
    await onboard(s.w, u, 'approve')
    const res = await s.w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
    s.answered(res, 201)
    await s.chain.sendNative(res.body.address, parseEther('1'))
    if (units > 0n) await s.chain.sendToken(res.body.address, units, USDC_SEPOLIA)
    if (!s.channelId) {
      s.channelId = (await s.post(u, '/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'DE', fiatCurrency: 'EUR' })).body.channels
        .find((c: { paymentMethodType: string }) => c.paymentMethodType === 'BankSepa').channelId
    }
    return { u, wallet: res.body as { id: string; address: Address } }
  }
  s.ticking = (read, done, timeoutMs = 30_000) => {
    const clock = s.w.t.clock as ManualClock
    return until(async () => {
      clock.advance(1000)
      await Bun.sleep(40)
      return read()
    }, done, timeoutMs)
  }
  s.advanced = async (u, payoutId, done = (p) => p.rampTransactionId !== null || p.status !== 'pending') =>
    (await s.ticking(() => s.get(u, `/v1/ramp/bank/payout/payouts/${payoutId}?isTestnet=true`), (r) => done(r.body))).body as Record<string, any>
  return s
}
