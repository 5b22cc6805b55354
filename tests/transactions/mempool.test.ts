/**
 * Sends against a real node's mempool and base fee (anvil, tests/helpers/evm-node.ts), with no
 * proxy before it: the node itself drops a send from its pool (`anvil_dropTransaction`) or
 * raises its base fee above a send's max fee (`anvil_setNextBlockBaseFeePerGas`), and the
 * status job (src/modules/transactions/families/evm-refresh.ts) resends, replaces or fails it.
 * Mining is paused while the job works, so what it does is seen in the node's pool.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { parseEther, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { transactions } from '@/modules/transactions/schema'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { custodialWallet, reader, waitFor } from './helpers'

let node: LocalChain
let chain: ReturnType<typeof reader>
/** fee ceiling +100%, one resend */
let a: { t: TestApp; f: Factory; tenant: Tenant }
/** fee ceiling +0%: a dropped send cannot be resent */
let b: { t: TestApp; f: Factory; tenant: Tenant }

async function app(env: Record<string, string>) {
  const t = await makeApp({ clock: systemClock, jobs: true, env: { TX_DROP_AFTER_MS: '200', ...env } })
  const f = new Factory(t)
  return { t, f, tenant: await f.tenant({ chains: { rpc: { ethereum: node.url } } }) }
}

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  chain = reader(node.url)
  a = await app({ TX_MAX_FEE_BUMP_PERCENT: '100', TX_MAX_RESENDS: '1' })
  b = await app({ TX_MAX_FEE_BUMP_PERCENT: '0' })
}, 30_000)
afterEach(() => node.resumeMining())
afterAll(async () => {
  await a.t.close()
  await b.t.close()
  await node.stop()
})

const to = privateKeyToAccount(generatePrivateKey()).address
async function fundedUser(x: typeof a) {
  const u = await x.f.user(x.tenant)
  const w = await custodialWallet(x.f.api, u)
  await node.sendNative(w.address, parseEther('1'))
  return { u, w }
}
const send = (x: typeof a, u: SignedInUser, walletId: string, amount: string) => x.f.api.post('/v1/transactions/', { walletId, chain: 'ethereum', toAddress: to, amount }, { token: u.accessToken })
/** the stored record (no chain read: what changes is the job's work) */
const row = (x: typeof a, id: string) => x.t.deps.database.db.select().from(transactions).where(eq(transactions.id, id)).get()
const inPool = async (hash: string) => (await node.rpc<{ blockNumber: string | null } | null>('eth_getTransactionByHash', [hash]))?.blockNumber === null

describe('the node drops a send from its pool', () => {
  test('the status job signs it again with a 20% higher fee for the same nonce; mined, it is confirmed with the dropped hash shown replaced', async () => {
    const { u, w } = await fundedUser(a)
    await node.pauseMining()
    const res = await send(a, u, w.id, '1000')
    expect(res.status).toBe(201)
    const first = res.body.txHash as Hex
    expect(await inPool(first)).toBe(true)
    await node.rpc('anvil_dropTransaction', [first])
    expect(await node.rpc('eth_getTransactionByHash', [first])).toBeNull()
    // the job finds the node knows none of its hashes and its nonce unused: a resend, waiting in the pool
    const resent = await waitFor(() => row(a, res.body.id), (r) => !!r && r.resendCount === 1, 20_000)
    expect(resent!.previousHashes).toEqual([first])
    expect(await inPool(resent!.txHash!)).toBe(true)
    await node.resumeMining()
    const done = await waitFor(() => row(a, res.body.id), (r) => r?.status !== 'pending', 20_000)
    expect(done).toMatchObject({ status: 'confirmed', nonce: 0, txHash: resent!.txHash, previousHashes: [first] })
    const mined = await chain.pub.getTransaction({ hash: done!.txHash as Hex })
    expect(mined.maxFeePerGas).toBe((BigInt(done!.initialMaxFeePerGas!) * 12n) / 10n)
    expect(await chain.nonce(w.address)).toBe(1)
  }, 45_000)

  test('with no room under the fee ceiling it is failed with the reason, and the next send takes its nonce', async () => {
    const { u, w } = await fundedUser(b)
    await node.pauseMining()
    const res = await send(b, u, w.id, '1000')
    await node.rpc('anvil_dropTransaction', [res.body.txHash])
    const done = await waitFor(() => row(b, res.body.id), (r) => r?.status !== 'pending', 20_000)
    expect(done).toMatchObject({ status: 'failed', resendCount: 0 })
    expect(done!.failureReason).toContain('fee ceiling (+0%)')
    await node.resumeMining()
    const next = await send(b, u, w.id, '5')
    expect(next.body.nonce).toBe(0)
    expect((await waitFor(() => row(b, next.body.id), (r) => r?.status !== 'pending', 20_000))!.status).toBe('confirmed')
    expect(await chain.nonce(w.address)).toBe(1)
  }, 45_000)
})

describe('the base fee rises above a send in the pool', () => {
  test('the node evicts it at the next block; the status job resends it 20% up, which the base fee falling after an empty block admits: mined, confirmed', async () => {
    const { u, w } = await fundedUser(a)
    await node.pauseMining()
    const res = await send(a, u, w.id, '1000')
    expect(res.status).toBe(201)
    const first = await chain.pub.getTransaction({ hash: res.body.txHash })
    // the next block's base fee 10% over the send's max fee: the block is mined without it,
    // and anvil drops what can no longer pay the base fee (it does not hold it)
    const high = (first.maxFeePerGas! * 11n) / 10n
    await node.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`])
    await node.rpc('evm_mine')
    const block = await chain.pub.getBlock({ blockTag: 'latest' })
    expect([block.baseFeePerGas, block.transactions.length]).toEqual([high, 0])
    expect(await node.rpc('eth_getTransactionByHash', [res.body.txHash])).toBeNull()
    const resent = await waitFor(() => row(a, res.body.id), (r) => !!r && r.resendCount === 1, 20_000)
    expect(resent!.previousHashes).toEqual([res.body.txHash])
    expect(BigInt(resent!.maxFeePerGas!)).toBe((first.maxFeePerGas! * 12n) / 10n)
    // the empty block lowers the next base fee by 1/8 (EIP-1559): under the resend's max fee
    await node.resumeMining()
    const done = await waitFor(() => row(a, res.body.id), (r) => r?.status !== 'pending', 20_000)
    expect(done).toMatchObject({ status: 'confirmed', nonce: 0, txHash: resent!.txHash, previousHashes: [res.body.txHash] })
    const minedIn = await chain.pub.getBlock({ blockNumber: BigInt(done!.blockNumber!) })
    expect(minedIn.baseFeePerGas).toBe(high - high / 8n)
    expect(await chain.nonce(w.address)).toBe(1)
  }, 45_000)
})
