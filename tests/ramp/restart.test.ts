/**
 * A restart strands no sandbox deposit (issue 37, item 9). Slipway runs as operators run it
 * (a process on a SQLite file), the embedded simulator paying from its funded key on a local
 * chain whose mining the test stops: the simulator's transfer is broadcast and waits to be
 * mined when the server is stopped, with kill -9 or with SIGTERM. After the restart the
 * delivery completes with its hash, the tenant's `ramp.transaction.updated` says so, and the
 * stablecoin was sent once (the funder's nonce moved by one, the balance is the amount).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, startProcess } from '@tests/helpers/process'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'
import { FUNDER_KEY, startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { until } from './world'

let chain: LocalChain
let receiver: WebhookReceiver
const CMD = [process.execPath, 'src/index.ts']
const FUNDER = privateKeyToAccount(FUNDER_KEY).address
/** 10.00 EUR - 0.10 fee = 9.90 at 1.08 = 10.692 USDC */
const AMOUNT = 10_692_000n

beforeAll(async () => {
  chain = await startLocalChain()
  receiver = new WebhookReceiver().start()
}, 30_000)
afterAll(async () => {
  receiver.stop()
  await chain.stop()
})

const pub = () => createPublicClient({ transport: http(chain.url) })
const rpc = (method: string) => pub().request({ method, params: [] } as never)
/** the funder's transactions waiting in the node's pool, by its txpool_content */
const pooled = async () => {
  const pool = await pub().request({ method: 'txpool_content', params: [] } as never) as { pending: Record<string, Record<string, { hash: string }>> }
  const mine = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === FUNDER.toLowerCase())?.[1] ?? {}
  return Object.values(mine).map((t) => t.hash)
}
const env = () => ({
  BANK_RAMP_SIMULATOR_RPC_URL: chain.url, BANK_RAMP_SIMULATOR_TOKEN_ADDRESS: chain.tokenAddress, BANK_RAMP_SIMULATOR_PRIVATE_KEY: FUNDER_KEY,
  WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}`,
})
const deliveryOf = (body: { transactions?: Array<{ transactionType: string }> }) => body.transactions?.find((x) => x.transactionType === 'payin_delivery') as { id: string; status: string; transactionHash: string | null } | undefined

async function strandedDeposit(signal: 'SIGKILL' | 'SIGTERM') {
  const first = await startProcess(CMD, { env: env() })
  let second: Awaited<ReturnType<typeof startProcess>> | undefined
  try {
    let api = new Api(first.url)
    const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
    const tenant = (await api.post('/v1/admin/tenants', { name: `restart-${signal}`, settings: { bankRamp: { sandbox: { connected: true, functions: { kyc: true, payin: true } } } } }, { token: admin })).body
    expect((await api.put(`/v1/admin/tenants/${tenant.id}/webhooks/sandbox`, { url: `https://hooks.slipway.test/${signal}` }, { token: admin })).status).toBe(201)
    const token = (await api.post('/v1/auth/register', { username: `payer${signal}`, email: `payer-${signal}@example.com`, password: 'Passw0rd-long' }, { signedBy: tenant })).body.accessToken
    const session = await api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token })
    const page = (session.body.url as string).replace('//localhost:', '//127.0.0.1:')
    expect((await fetch(page)).status).toBe(200)
    expect((await fetch(`${page}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) })).status).toBe(200)
    await until(() => api.get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', { token }), (r) => r.body.kycStatus === 'approved')
    const wallet = (await api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token })).body
    expect((await api.post('/v1/ramp/bank/payin/initiate', { walletId: wallet.id, isTestnet: true }, { token })).status).toBe(200)

    const nonceBefore = await pub().getTransactionCount({ address: FUNDER })
    await chain.pauseMining()
    expect((await api.post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 10 }, { token })).status).toBe(200)
    // the window: the deposit converted, the delivery submitted, its transfer broadcast and not mined
    const [broadcast] = await until(pooled, (hashes) => hashes.length === 1, 20_000)
    const pending = await until(() => api.get('/v1/ramp/bank/payin/transactions?isTestnet=true', { token }), (r) => deliveryOf(r.body)?.status === 'pending')
    expect(deliveryOf(pending.body)!.transactionHash).toBeNull()
    await first.stop(signal)
    if (signal === 'SIGKILL') {
      // mined while the server is down: the stablecoin arrives, the server does not see it happen
      await chain.resumeMining()
      expect(await pub().readContract({ address: chain.tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.address as Address] })).toBe(AMOUNT)
    }
    second = await startProcess(CMD, { env: env(), dir: first.dir })
    api = new Api(second.url)
    if (signal === 'SIGTERM') {
      // the restarted server finds the transfer unmined and waits for it (never a second one)
      await Bun.sleep(1500)
      expect(await pooled()).toEqual([broadcast!])
      expect(await pub().getTransactionCount({ address: FUNDER })).toBe(nonceBefore)
      await chain.resumeMining()
    }
    const done = await until(() => api.get('/v1/ramp/bank/payin/transactions?isTestnet=true', { token }), (r) => deliveryOf(r.body)?.status === 'completed', 30_000)
    const delivery = deliveryOf(done.body)!
    expect(delivery.transactionHash).toBe(broadcast!)
    const receipt = await pub().getTransactionReceipt({ hash: delivery.transactionHash as `0x${string}` })
    expect(receipt.status).toBe('success')
    expect(receipt.from.toLowerCase()).toBe(FUNDER.toLowerCase())
    // its tenant event came
    const event = await until(async () => receiver.received.filter((r) => r.path === `/${signal}`).map((r) => JSON.parse(r.body))
      .find((e) => e.type === 'ramp.transaction.updated' && e.data.transactionId === delivery.id && e.data.status === 'completed'), (e) => !!e, 30_000)
    expect(event.data.transactionHash).toBe(delivery.transactionHash)
    // sent once: one transaction from the funder, the amount once
    await Bun.sleep(500)
    expect(await pub().getTransactionCount({ address: FUNDER })).toBe(nonceBefore + 1)
    expect(await pub().readContract({ address: chain.tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.address as Address] })).toBe(AMOUNT)
  } finally {
    await chain.resumeMining().catch(() => {})
    if (first.proc.exitCode === null && !first.proc.killed) await first.stop('SIGKILL')
    await second?.stop()
  }
}

test('kill -9 while the simulator\'s transfer waits to be mined: after the restart the delivery completes, reported, sent once', async () => {
  await strandedDeposit('SIGKILL')
}, 90_000)

test('SIGTERM in the same window, restarted before it is mined: the delivery completes, reported, sent once', async () => {
  await strandedDeposit('SIGTERM')
}, 90_000)
