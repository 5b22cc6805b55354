/** Helpers shared by the transaction tests: wallets, funding, waiting for a status. */
import { expect } from 'bun:test'
import { createPublicClient, erc20Abi, http, keccak256, type Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { Api } from '@tests/helpers/client'
import type { SignedInUser } from '@tests/helpers/factories'

export const USDC_MAINNET: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'

export async function custodialWallet(api: Api, u: SignedInUser, chain = 'ethereum') {
  const res = await api.post('/v1/wallets/', { chain }, { token: u.accessToken })
  expect(res.status).toBe(201)
  return res.body as { id: string; address: Address }
}

/** Registers `account` as the user's non-custodial wallet (challenge signed with EIP-191). */
export async function clientWallet(api: Api, u: SignedInUser, account: PrivateKeyAccount) {
  const c = await api.get(`/v1/wallets/client/challenge?chain=ethereum&address=${account.address}`, { token: u.accessToken })
  expect(c.status).toBe(200)
  const signature = await account.signMessage({ message: c.body.message })
  const res = await api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature }, { token: u.accessToken })
  expect(res.status).toBe(201)
  return res.body as { id: string; address: Address }
}

/** Polls until `check` passes or the time is up; answers the last value. */
export async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let v = await read()
  while (!done(v) && Date.now() < deadline) {
    await Bun.sleep(100)
    v = await read()
  }
  return v
}

export function reader(url: string) {
  const pub = createPublicClient({ transport: http(url) })
  return {
    pub,
    balance: (a: Address) => pub.getBalance({ address: a }),
    tokenBalance: (token: Address, a: Address) => pub.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [a] }),
    nonce: (a: Address) => pub.getTransactionCount({ address: a }),
  }
}

/**
 * A JSON-RPC proxy in front of the node. `onSend` decides what happens to each
 * eth_sendRawTransaction: `forward`, `swallow` (answer its hash without forwarding: a
 * node that drops it from its mempool), or `reject` (a JSON-RPC error). `answer` may
 * answer any request in the node's place (a node that reports a transaction it keeps,
 * or another base fee).
 */
export function rpcProxy(target: string) {
  type Req = { id: unknown; method: string; params: unknown[] }
  const state = {
    onSend: (): 'forward' | 'swallow' | 'reject' => 'forward',
    sent: [] as string[],
    rejectMessage: 'server overloaded, try later',
    /** answers a request in the node's place (its JSON-RPC `result`, or a whole answer), or undefined to go on as usual */
    answer: (_r: Req, _forward: (r: Req) => Promise<{ result?: unknown }>): Promise<unknown> | undefined => undefined,
  }
  const forward = async (r: Req) => (await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r) })).json() as Promise<{ result?: unknown }>
  const one = async (r: Req): Promise<unknown> => {
    if (r.method === 'eth_sendRawTransaction') state.sent.push(r.params[0] as string)
    const answered = state.answer(r, forward)
    if (answered) {
      const v = await answered
      // a whole JSON-RPC answer (as `forward` gives) passes as it is
      return v && typeof v === 'object' && 'jsonrpc' in v ? { ...v, id: r.id } : { jsonrpc: '2.0', id: r.id, result: v }
    }
    if (r.method !== 'eth_sendRawTransaction') return forward(r)
    const raw = r.params[0] as `0x${string}`
    const action = state.onSend()
    if (action === 'reject') return { jsonrpc: '2.0', id: r.id, error: { code: -32000, message: state.rejectMessage } }
    if (action === 'swallow') return { jsonrpc: '2.0', id: r.id, result: keccak256(raw) }
    return forward(r)
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as Req | Req[]
      // Batches (viem groups concurrent calls) are answered item by item.
      return Response.json(Array.isArray(body) ? await Promise.all(body.map(one)) : await one(body))
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, state, stop: () => server.stop(true) }
}
