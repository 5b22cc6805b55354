/**
 * What happens when submissions fail: a send the node refuses gives its nonce back
 * (no gap), a transaction dropped from the mempool is resent with a higher fee within the
 * ceiling, and one that cannot be resent is marked failed with a reason. A send the node
 * keeps but does not mine is handed to it again (fees it accepts) or replaced for the
 * same nonce (fees under what it accepts); whichever signature is mined is recorded, the
 * other shown replaced.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { keccak256, parseEther, parseTransaction, toHex, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { transactions } from '@/modules/transactions/schema'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { custodialWallet, reader, rpcProxy, waitFor } from './helpers'

let node: LocalChain
let proxy: ReturnType<typeof rpcProxy>
let chain: ReturnType<typeof reader>
/** bump ceiling +100%, one resend allowed, a hash unknown to the node counts as dropped at once */
let a: { t: TestApp; f: Factory; tenant: Tenant }
/** bump ceiling 0%: a dropped transaction cannot be resent */
let b: { t: TestApp; f: Factory; tenant: Tenant }

async function app(env: Record<string, string>) {
  const t = await makeApp({ clock: systemClock, jobs: true, env: { TX_DROP_AFTER_MS: '0', ...env } })
  const f = new Factory(t)
  return { t, f, tenant: await f.tenant({ chains: { rpc: { ethereum: proxy.url } } }) }
}

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  proxy = rpcProxy(node.url)
  chain = reader(node.url)
  // A short RPC timeout turns a node's slow answer to a submission into an "unknown"
  // outcome (kept pending) quickly.
  a = await app({ TX_MAX_FEE_BUMP_PERCENT: '100', TX_MAX_RESENDS: '1', RPC_TIMEOUT_MS: '1500' })
  b = await app({ TX_MAX_FEE_BUMP_PERCENT: '0' })
}, 30_000)
afterAll(async () => {
  await a.t.close()
  await b.t.close()
  proxy.stop()
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
const stored = (x: typeof a, u: SignedInUser, id: string) => x.f.api.get(`/v1/transactions/${id}`, { token: u.accessToken })
const settled = (x: typeof a, u: SignedInUser, id: string, timeoutMs = 15_000) => waitFor(() => stored(x, u, id), (r) => r.body?.status !== 'pending', timeoutMs)

describe('a submission the node refuses', () => {
  test('is recorded failed, answers 400 TRANSACTION_REJECTED, and its nonce is reused so later sends are not stuck behind a gap', async () => {
    const { u, w } = await fundedUser(a)
    let calls = 0
    // Of three concurrent sends, the node refuses whichever reaches it second.
    proxy.state.onSend = () => (++calls === 2 ? 'reject' : 'forward')
    const answers = await Promise.all(['1', '2', '3'].map((amount) => send(a, u, w.id, amount)))
    proxy.state.onSend = () => 'forward'
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 400])
    const refused = answers.find((r) => r.status === 400)!
    expect(refused.body).toMatchObject({ error: 'BlockchainError', code: 'TRANSACTION_REJECTED' })
    const list = await a.f.api.get('/v1/transactions/?status=failed', { token: u.accessToken })
    expect(list.body.data).toHaveLength(1)
    const failed = list.body.data[0]
    expect(failed.failureReason).toContain('not submitted')
    // The next send takes the given-back nonce: every accepted send then confirms.
    const next = await send(a, u, w.id, '4')
    expect(next.status).toBe(201)
    expect(next.body.nonce).toBe(failed.nonce)
    for (const r of [...answers.filter((x) => x.status === 201), next]) expect((await settled(a, u, r.body.id)).body.status).toBe('confirmed')
    expect(await chain.nonce(w.address)).toBe(3)
  }, 30_000)
})

describe('a node that says "nonce too high"', () => {
  test('the counter restarts from the chain\'s pending count and the send goes through', async () => {
    const { u, w } = await fundedUser(a)
    const first = await send(a, u, w.id, '1')
    expect(first.body.nonce).toBe(0)
    expect((await settled(a, u, first.body.id)).body.status).toBe('confirmed')
    // The database is ahead of the chain (as after the node lost its pool): nonce 5 is refused.
    const { walletNonces } = await import('@/modules/transactions/schema')
    const { eq } = await import('drizzle-orm')
    await a.t.deps.database.write((tx) => tx.update(walletNonces).set({ nextNonce: 5 }).where(eq(walletNonces.walletId, w.id)))
    let calls = 0
    proxy.state.rejectMessage = 'nonce too high'
    proxy.state.onSend = () => (++calls === 1 ? 'reject' : 'forward')
    try {
      const res = await send(a, u, w.id, '2')
      expect(res.status).toBe(201)
      expect(res.body.nonce).toBe(1)
      expect((await settled(a, u, res.body.id)).body.status).toBe('confirmed')
    } finally {
      proxy.state.onSend = () => 'forward'
      proxy.state.rejectMessage = 'server overloaded, try later'
    }
  }, 30_000)
})

describe('a transaction dropped from the mempool', () => {
  test('is resent by the background job with a higher fee and confirms', async () => {
    const { u, w } = await fundedUser(a)
    let calls = 0
    proxy.state.onSend = () => (++calls === 1 ? 'swallow' : 'forward')
    const res = await send(a, u, w.id, '1000')
    expect(res.status).toBe(201)
    const done = await settled(a, u, res.body.id)
    proxy.state.onSend = () => 'forward'
    expect(done.body.status).toBe('confirmed')
    expect(done.body.resendCount).toBe(1)
    expect(done.body.txHash).not.toBe(res.body.txHash)
    const mined = await chain.pub.getTransaction({ hash: done.body.txHash })
    const first = await a.t.deps.database.db.select().from(transactions).where(eq(transactions.id, res.body.id)).get()
    expect(first!.previousHashes).toEqual([res.body.txHash])
    expect(mined.maxFeePerGas!).toBe((BigInt(first!.initialMaxFeePerGas!) * 12n) / 10n)
    expect(mined.nonce).toBe(0)
  }, 30_000)

  test('is marked failed once TX_MAX_RESENDS resends were not mined, and its nonce goes back', async () => {
    const { u, w } = await fundedUser(a)
    proxy.state.onSend = () => 'swallow'
    const res = await send(a, u, w.id, '1000')
    const done = await settled(a, u, res.body.id)
    proxy.state.onSend = () => 'forward'
    expect(done.body).toMatchObject({ status: 'failed', resendCount: 1 })
    expect(done.body.failureReason).toContain('not mined after 1 resends')
    const next = await send(a, u, w.id, '5')
    expect(next.body.nonce).toBe(0)
    expect((await settled(a, u, next.body.id)).body.status).toBe('confirmed')
  }, 30_000)

  test('with no room under the fee ceiling it is marked failed with the reason', async () => {
    const { u, w } = await fundedUser(b)
    proxy.state.onSend = () => 'swallow'
    const res = await send(b, u, w.id, '1000')
    const done = await settled(b, u, res.body.id)
    proxy.state.onSend = () => 'forward'
    expect(done.body).toMatchObject({ status: 'failed', resendCount: 0 })
    expect(done.body.failureReason).toContain('fee ceiling (+0%)')
    const status = await b.f.api.get(`/v1/transactions/${res.body.id}/status`, { token: u.accessToken })
    expect(status.body).toMatchObject({ status: 'failed', failureReason: done.body.failureReason })
    const next = await send(b, u, w.id, '5')
    expect(next.body.nonce).toBe(0)
    expect((await settled(b, u, next.body.id)).body.status).toBe('confirmed')
  }, 30_000)
})

/** The node's answer to eth_getTransactionByHash for a transaction it keeps in its pool, unmined. */
function keptTransaction(raw: Hex, from: string) {
  const tx = parseTransaction(raw)
  return {
    hash: keccak256(raw), nonce: toHex(tx.nonce!), from, to: tx.to, value: toHex(tx.value ?? 0n), gas: toHex(tx.gas!), input: tx.data ?? '0x', type: '0x2', chainId: '0x1',
    maxFeePerGas: toHex(tx.maxFeePerGas!), maxPriorityFeePerGas: toHex(tx.maxPriorityFeePerGas!), accessList: [], v: '0x0', r: tx.r, s: tx.s, yParity: '0x0',
    blockHash: null, blockNumber: null, transactionIndex: null,
  }
}

/** The proxy keeps the wallet's first submission (never forwarded, reported pending) and optionally reports a base fee of `baseFee()`. */
function keepFirst(from: string, baseFee: () => bigint | null = () => null) {
  const kept = new Map<string, ReturnType<typeof keptTransaction>>()
  const firstSent = proxy.state.sent.length
  proxy.state.onSend = () => (proxy.state.sent.length === firstSent + 1 ? 'swallow' : 'forward')
  proxy.state.answer = (r, forward) => {
    if (proxy.state.sent.length > firstSent && !kept.size) {
      const raw = proxy.state.sent[firstSent] as Hex
      kept.set(keccak256(raw), keptTransaction(raw, from))
    }
    if (r.method === 'eth_getTransactionByHash' && kept.has(r.params[0] as string)) return Promise.resolve(kept.get(r.params[0] as string))
    const fee = baseFee()
    if (r.method === 'eth_getBlockByNumber' && r.params[0] === 'latest' && fee !== null) return forward(r).then((b) => ({ ...(b.result as object), baseFeePerGas: toHex(fee) }))
    return undefined
  }
  return { firstRaw: () => proxy.state.sent[firstSent] as Hex }
}
const row = (x: typeof a, id: string) => x.t.deps.database.db.select().from(transactions).where(eq(transactions.id, id)).get()

describe('a send the node keeps but does not mine', () => {
  afterEachReset()

  test('with fees the node accepts: it is handed to the node again with the sends queued behind it, and all confirm', async () => {
    const { u, w } = await fundedUser(a)
    const sentBefore = proxy.state.sent.length
    keepFirst(w.address)
    const first = await send(a, u, w.id, '1000')
    expect(first.status).toBe(201)
    // Queued behind the kept nonce 0 (the node holds it in its pool until nonce 0 arrives).
    const second = await send(a, u, w.id, '2000')
    expect(second.status).toBe(201)
    expect(second.body.nonce).toBe(1)
    const [one, two] = [await settled(a, u, first.body.id), await settled(a, u, second.body.id)]
    expect(one.body).toMatchObject({ status: 'confirmed', txHash: first.body.txHash, resendCount: 0, replacedHashes: [] })
    expect(two.body).toMatchObject({ status: 'confirmed', txHash: second.body.txHash })
    // Slipway signed two transactions, nonces 0 and 1, and handed only those to the node (some
    // twice: the job and a status read may both hand the kept ones over).
    const sent = new Map(proxy.state.sent.slice(sentBefore).map((raw) => [keccak256(raw as Hex), parseTransaction(raw as Hex).nonce]))
    expect([...sent.keys()].sort()).toEqual([first.body.txHash, second.body.txHash].sort())
    expect([...sent.values()].sort()).toEqual([0, 1])
    expect(await chain.nonce(w.address)).toBe(2)
  }, 30_000)

  test('with fees under what the node now accepts: it is replaced for the same nonce, within the ceiling, and the first is shown replaced', async () => {
    const { u, w } = await fundedUser(a)
    let raised: bigint | null = null
    const k = keepFirst(w.address, () => raised)
    const res = await send(a, u, w.id, '1000')
    expect(res.status).toBe(201)
    const tx = parseTransaction(k.firstRaw())
    // The base fee rose above the send's max fee.
    raised = (tx.maxFeePerGas! * 15n) / 10n
    const done = await settled(a, u, res.body.id)
    raised = null
    expect(done.body).toMatchObject({ status: 'confirmed', resendCount: 1, replacedHashes: [res.body.txHash] })
    expect(done.body.txHash).not.toBe(res.body.txHash)
    const mined = await chain.pub.getTransaction({ hash: done.body.txHash })
    expect(mined.nonce).toBe(tx.nonce!)
    // both tip and max fee at least 10% up (the nodes' replacement minimum), within +100% of the first max fee
    expect(mined.maxPriorityFeePerGas! * 100n).toBeGreaterThanOrEqual(tx.maxPriorityFeePerGas! * 110n)
    expect(mined.maxFeePerGas! * 100n).toBeGreaterThanOrEqual(tx.maxFeePerGas! * 110n)
    expect(mined.maxFeePerGas!).toBeLessThanOrEqual(tx.maxFeePerGas! * 2n)
    expect((await row(a, res.body.id))!.previousHashes).toEqual([res.body.txHash])
    const status = await a.f.api.get(`/v1/transactions/${res.body.id}/status`, { token: u.accessToken })
    expect(status.body).toMatchObject({ status: 'confirmed', txHash: done.body.txHash, replacedHashes: [res.body.txHash] })
    // nothing else was sent for the send: one transaction on chain
    expect(await chain.nonce(w.address)).toBe(1)
    const next = await send(a, u, w.id, '5')
    expect(next.body.nonce).toBe(1)
    expect((await settled(a, u, next.body.id)).body.status).toBe('confirmed')
  }, 30_000)

  test('when the first signature is mined after its replacement was sent, the first is recorded and the replacement shown replaced', async () => {
    const { u, w } = await fundedUser(a)
    let raised: bigint | null = null
    const k = keepFirst(w.address, () => raised)
    // the replacement reaches no node either
    proxy.state.onSend = () => 'swallow'
    const sentBefore = proxy.state.sent.length
    const res = await send(a, u, w.id, '1000')
    raised = (parseTransaction(k.firstRaw()).maxFeePerGas! * 15n) / 10n
    await waitFor(async () => proxy.state.sent.length, (n) => n >= sentBefore + 2)
    raised = null
    expect(proxy.state.sent.length).toBeGreaterThanOrEqual(sentBefore + 2)
    const replacement = keccak256(proxy.state.sent[sentBefore + 1] as Hex)
    // Now the node mines the first signature.
    await chain.pub.request({ method: 'eth_sendRawTransaction', params: [k.firstRaw()] } as never)
    const done = await settled(a, u, res.body.id)
    expect(done.body).toMatchObject({ status: 'confirmed', txHash: res.body.txHash, replacedHashes: [replacement] })
    expect((await row(a, res.body.id))!.previousHashes).toEqual([replacement])
    expect(await chain.nonce(w.address)).toBe(1)
  }, 30_000)
})

describe('a first submission that reaches the node after the status job signed the send again', () => {
  afterEachReset()

  test('the send is not signed with a second nonce: one transaction on chain, the first signature shown replaced', async () => {
    const { u, w } = await fundedUser(a)
    const firstSent = proxy.state.sent.length
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    // The first submission is held (as behind a slow lane or a slow gateway) until released, then
    // answered as a node answers a nonce already used.
    proxy.state.answer = (r) => (r.method === 'eth_sendRawTransaction' && proxy.state.sent.length === firstSent + 1
      ? released.then(() => ({ jsonrpc: '2.0', error: { code: -32000, message: 'nonce too low' } }))
      : undefined)
    const pending = send(a, u, w.id, '1000')
    const stored = await waitFor(() => a.t.deps.database.db.select().from(transactions).where(eq(transactions.walletId, w.id)).get(), (x) => !!x)
    // The node does not know the hash yet: a status read past TX_DROP_AFTER_MS (0 here) resends it, and it is mined.
    const read = await a.f.api.get(`/v1/transactions/${stored!.id}/status`, { token: u.accessToken })
    expect(read.body.txHash).not.toBe(stored!.txHash)
    await waitFor(() => chain.nonce(w.address), (n) => n === 1)
    // Now the first submission arrives: its nonce is used ("nonce too low").
    release()
    const res = await pending
    expect(res.status).toBe(201)
    expect(res.body.nonce).toBe(0)
    const done = await settled(a, u, res.body.id)
    expect(done.body).toMatchObject({ status: 'confirmed', nonce: 0, txHash: read.body.txHash, replacedHashes: [stored!.txHash] })
    await Bun.sleep(1000)
    expect(await chain.nonce(w.address)).toBe(1)
    const next = await send(a, u, w.id, '5')
    expect(next.body.nonce).toBe(1)
    expect((await settled(a, u, next.body.id)).body.status).toBe('confirmed')
  }, 30_000)
})

function afterEachReset() {
  afterEach(() => {
    proxy.state.onSend = () => 'forward'
    proxy.state.answer = () => undefined
  })
}
