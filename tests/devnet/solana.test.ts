/**
 * The devnet's Solana endpoint (scripts/devnet/solana.ts: LiteSVM behind JSON-RPC, what
 * `npm run devnet` writes to .env.devnet as RPC_URL_SOLANA_DEVNET): a newcomer funds a
 * `solana-devnet` wallet offline (`requestAirdrop`, `devnet_mintTo`), sends SOL and the
 * registry's devnet USDC through Slipway to addresses that hold nothing, sees them confirm and
 * the recipients' balances on the node, and a restart of the node keeps every balance.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Keypair } from '@solana/web3.js'
import { DEVNET_SOLANA_USDC, startSolanaDevnet, type SolanaDevnet } from '../../scripts/devnet/solana'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory } from '@tests/helpers/factories'
import { waitFor } from '@tests/transactions/helpers'

const dir = mkdtempSync(join(tmpdir(), 'slipway-solana-devnet-'))
const statePath = join(dir, 'solana.json')
let node: SolanaDevnet
let t: TestApp
let f: Factory

beforeAll(async () => {
  node = await startSolanaDevnet({ port: 0, statePath })
  t = await makeApp({ clock: systemClock, jobs: true, env: node.env })
  f = new Factory(t)
}, 30_000)
afterAll(async () => {
  await t.close()
  await node.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** A JSON-RPC call to the devnet node, as curl would send it. */
async function rpc<T = unknown>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: T; error?: { message: string } }
  if (body.error) throw new Error(body.error.message)
  return body.result as T
}
const lamports = async (url: string, a: string) => BigInt((await rpc<{ value: number }>(url, 'getBalance', [a])).value)
const usdc = async (url: string, owner: string) => {
  const r = await rpc<{ value: Array<{ account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } } }> }>(url, 'getTokenAccountsByOwner', [owner, { mint: DEVNET_SOLANA_USDC }, { encoding: 'jsonParsed' }])
  return r.value.reduce((sum, a) => sum + BigInt(a.account.data.parsed.info.tokenAmount.amount), 0n)
}

describe('the devnet\'s Solana endpoint', () => {
  test('a solana-devnet wallet funded offline (requestAirdrop, devnet_mintTo) sends SOL and USDC to empty addresses; both confirm and the recipients hold them; a restart keeps every balance', async () => {
    const tenant = await f.tenant()
    const u = await f.user(tenant)
    const w = await f.api.post('/v1/wallets/', { chain: 'solana-devnet' }, { token: u.accessToken })
    expect(w.status).toBe(201)
    expect(w.body.isTestnet).toBe(true)
    await rpc(node.url, 'requestAirdrop', [w.body.address, 2_000_000_000])
    await rpc(node.url, 'devnet_mintTo', [w.body.address, DEVNET_SOLANA_USDC, '50000000'])
    const bal = await f.api.get(`/v1/wallets/${w.body.id}/balance`, { token: u.accessToken })
    expect(bal.body.nativeBalance).toMatchObject({ symbol: 'SOL', rawBalance: '2000000000' })
    expect(bal.body.tokens.find((x: { symbol: string }) => x.symbol === 'USDC')).toMatchObject({ rawBalance: '50000000' })

    const [a, b] = [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58()]
    const sendSol = await f.api.post('/v1/transactions/', { walletId: w.body.id, chain: 'solana-devnet', toAddress: a, amount: '500000000' }, { token: u.accessToken })
    expect(sendSol.status).toBe(201)
    const sendUsdc = await f.api.post('/v1/transactions/', { walletId: w.body.id, chain: 'solana-devnet', toAddress: b, amount: '10000000', tokenAddress: DEVNET_SOLANA_USDC }, { token: u.accessToken })
    expect(sendUsdc.status).toBe(201)
    for (const id of [sendSol.body.id, sendUsdc.body.id]) {
      const done = await waitFor(() => f.api.get(`/v1/transactions/${id}/status`, { token: u.accessToken }), (r) => r.body?.status !== 'pending')
      expect(done.body.status).toBe('confirmed')
    }
    const rent = BigInt(await rpc<number>(node.url, 'getMinimumBalanceForRentExemption', [165]))
    const expected = { a: 500_000_000n, b: 10_000_000n, wallet: 2_000_000_000n - 500_000_000n - 2n * 5000n - rent, walletUsdc: 40_000_000n }
    const read = async (url: string) => ({ a: await lamports(url, a), b: await usdc(url, b), wallet: await lamports(url, w.body.address), walletUsdc: await usdc(url, w.body.address) })
    expect(await read(node.url)).toEqual(expected)

    // the node restarted from its state file: balances and the sends' statuses kept
    await node.stop()
    node = await startSolanaDevnet({ port: 0, statePath })
    expect(await read(node.url)).toEqual(expected)
    const statuses = await rpc<{ value: Array<{ err: unknown } | null> }>(node.url, 'getSignatureStatuses', [[sendSol.body.txHash, sendUsdc.body.txHash], { searchTransactionHistory: true }])
    expect(statuses.value).toMatchObject([{ err: null }, { err: null }])
    // and it takes new sends (a fresh blockhash)
    const { value } = await rpc<{ value: { blockhash: string } }>(node.url, 'getLatestBlockhash', [])
    expect(value.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
  }, 30_000)

  test('devnet_mintTo of an unknown mint and a bad address answer JSON-RPC errors', async () => {
    await expect(rpc(node.url, 'devnet_mintTo', [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58(), '1'])).rejects.toThrow(/mintTo failed|Instruction/)
    await expect(rpc(node.url, 'requestAirdrop', ['not-an-address', 1])).rejects.toThrow()
  })
})
