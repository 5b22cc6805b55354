/**
 * `Idempotency-Key` on `POST /v1/transactions/` (a custodial EVM send) with a fault injected
 * at each step of the send, over HTTP on anvil (issue 30, item 2):
 * - before the broadcast (the node refuses the submission, or cannot be reached): the error is
 *   answered, the key is released, and the same key sends once;
 * - after the broadcast (the node took it, its answer was lost): the send goes on, a retry
 *   answers the same transaction as it is now, nothing is sent twice.
 * Each checks the chain: the sender's nonce and the recipient's balance moved once.
 */
import { describe, expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { SignedInUser } from '@tests/helpers/factories'
import type { RpcFault } from '@tests/helpers/rpc-fault-proxy'
import { waitFor } from './helpers'
import { sendWorld } from './send-world'

const sw = sendWorld({ proxied: true })

async function sender() {
  const u = await sw.f.user(sw.tenant)
  return { u, w: await sw.funded(u) }
}

const send = (u: SignedInUser, body: unknown, key: string) => sw.f.api.post('/v1/transactions/', body, { token: u.accessToken, headers: { 'idempotency-key': key } })
const history = async (u: SignedInUser) => (await sw.f.api.get('/v1/transactions/', { token: u.accessToken })).body.data as Array<{ id: string; status: string }>

describe('before the broadcast: the key is released and the same key sends once', () => {
  const cases: Array<[RpcFault, number, string, string[]]> = [
    ['reject', 400, 'TRANSACTION_REJECTED', ['failed']],
    ['down', 503, 'ServiceUnavailableError', []],
  ]
  for (const [fault, status, code, recorded] of cases) {
    test(`the node ${fault === 'reject' ? 'refuses the submission' : 'cannot be reached'}: ${status}, then the retry sends (replayed false); one transfer on chain`, async () => {
      const { u, w } = await sender()
      const to = privateKeyToAccount(generatePrivateKey()).address
      const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1000' }
      const key = crypto.randomUUID()
      const first = await sw.proxy.during(fault, () => send(u, body, key))
      expect({ status: first.status, code: first.body.code ?? first.body.error }).toEqual({ status, code })
      expect(first.headers.get('idempotency-replayed')).toBe('false')
      // a refused submission is recorded failed; an unreachable node is found before anything is recorded
      expect((await history(u)).map((x) => x.status)).toEqual(recorded)
      expect(await sw.chain.nonce(w.address)).toBe(0)
      const again = await send(u, body, key)
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotency-replayed')).toBe('false')
      expect(again.body).toMatchObject({ status: 'pending', nonce: 0 })
      // the same key again: the send it now holds
      const replay = await send(u, body, key)
      expect(replay.headers.get('idempotency-replayed')).toBe('true')
      expect(replay.body.id).toBe(again.body.id)
      await waitFor(() => sw.chain.balance(to), (b) => b > 0n)
      expect(await sw.chain.balance(to)).toBe(1000n)
      expect(await sw.chain.nonce(w.address)).toBe(1)
    }, 30_000)
  }
})

describe('after the broadcast: the key stays bound to the send', () => {
  for (const fault of ['lose', 'cut'] as const) test(`the node took it and ${fault === 'lose' ? 'answered an error' : 'the connection closed before its answer'}: 201 pending; a retry answers the same transaction; one transfer on chain`, async () => {
    const { u, w } = await sender()
    const to = privateKeyToAccount(generatePrivateKey()).address
    const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '2000' }
    const key = crypto.randomUUID()
    const before = sw.proxy.forwarded.length
    const first = await sw.proxy.during(fault, () => send(u, body, key))
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 201 })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ status: 'pending', nonce: 0, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(sw.proxy.forwarded.length - before).toBe(1)
    const retry = await send(u, body, key)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash })
    await waitFor(() => sw.chain.balance(to), (b) => b > 0n)
    expect(await sw.chain.balance(to)).toBe(2000n)
    expect(await sw.chain.nonce(w.address)).toBe(1)
    expect(sw.proxy.forwarded.length - before).toBe(1)
    expect((await history(u)).map((x) => x.id)).toEqual([first.body.id])
  }, 30_000)

  test('the answer to the client is lost after a bound send (as a process that stopped): the retry answers the send as it is now, never sends', async () => {
    const { u, w } = await sender()
    const to = privateKeyToAccount(generatePrivateKey()).address
    const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '3000' }
    const key = crypto.randomUUID()
    const first = await send(u, body, key)
    expect(first.status).toBe(201)
    // as a process that stopped after recording and submitting leaves it: bound, no answer kept, its claim stale
    await sw.t.deps.database.client.execute({ sql: `UPDATE idempotency_keys SET state = 'running', status_code = NULL, response = NULL, created_at = ? WHERE key = ?`, args: [Date.now() - 121_000, key] })
    const before = sw.proxy.submissions
    const retry = await send(u, body, key)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body.id).toBe(first.body.id)
    expect(sw.proxy.submissions).toBe(before)
    await waitFor(() => sw.chain.balance(to), (b) => b > 0n)
    expect(await sw.chain.balance(to)).toBe(3000n)
    expect(await sw.chain.nonce(w.address)).toBe(1)
  }, 30_000)
})
