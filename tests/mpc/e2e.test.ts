/**
 * MPC end to end over HTTP (issue 26): a device party and a backup party here, with the same
 * library as the service party, run DKG with Slipway's service party (the worker's job, over
 * the relay's HTTP routes); the wallet is registered; a send signed by device and service
 * confirms on the local chain; device and backup sign without the service. The device-side
 * example (scripts/mpc-device.ts) has a file of its own, e2e-device-example.test.ts: each runs
 * a DKG, and apart they run at once under `npm test`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { loadMpcEngine } from '@/adapters/mpc/engine'
import { mpcMessages, mpcResults, mpcServiceShares, mpcSessions } from '@/modules/mpc/schema'
import { wallets } from '@/modules/wallets/schema'
import { eq } from 'drizzle-orm'
import { reader } from '@tests/transactions/helpers'
import type { SignedInUser } from '@tests/helpers/factories'
import { mpcSend, mpcWallet, mpcWorld, until, type MpcWorld } from './world'

let w: MpcWorld
let u: SignedInUser
let made: Awaited<ReturnType<typeof mpcWallet>>
const TO: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0002'

beforeAll(async () => {
  w = await mpcWorld()
  u = await w.f.user(w.tenant)
}, 30_000)
afterAll(async () => w?.stop())

describe('an MPC wallet from DKG to a confirmed send', () => {
  test('DKG: device, service and backup agree on one key; the wallet is registered with its address', async () => {
    made = await mpcWallet(w, u)
    expect(made.wallet).toMatchObject({ keyManagementScheme: 'mpc_tss', chain: 'ethereum', isTestnet: true, publicKey: made.device.publicKey })
    const results = await w.api.get(`/v1/mpc/relay/session/${made.sessionId}/results`, { token: u.accessToken })
    expect(results.body).toMatchObject({ status: 'completed', publicKey: made.device.publicKey, address: made.wallet.address, walletId: made.wallet.id })
    expect(results.body.results.map((r: { partyId: number }) => r.partyId)).toEqual([0, 1, 2])
    // a second registration of the same session
    const again = await w.api.post('/v1/mpc/wallets', { sessionId: made.sessionId }, { token: u.accessToken })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('MPC_WALLET_ALREADY_REGISTERED')
    // listed like any wallet
    const list = await w.api.get('/v1/wallets/', { token: u.accessToken })
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(made.wallet.id)
  }, 60_000)

  test('device + service sign a send; Slipway broadcasts it and it confirms on chain', async () => {
    await w.chain.sendNative(made.wallet.address, parseEther('1'))
    const balance = await w.api.get(`/v1/wallets/${made.wallet.id}/balance`, { token: u.accessToken })
    expect(balance.status).toBe(200)
    expect(JSON.stringify(balance.body)).toContain('1000000000000000000')
    const before = await reader(w.chain.url).balance(TO)
    const sent = await mpcSend(w, u, made.wallet.id, { 0: made.device.keyshare }, [0, 1], TO, '1000000000000000')
    expect(sent.results).toMatchObject({ status: 'completed', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    const status = await until(() => w.api.get(`/v1/transactions/${sent.results.transactionId}/status`, { token: u.accessToken }), (r) => r.body.status !== 'pending')
    expect(status.body.status).toBe('confirmed')
    expect(await reader(w.chain.url).balance(TO)).toBe(before + 1_000_000_000_000_000n)
    // in the history like other sends
    const history = await w.api.get(`/v1/transactions/?walletId=${made.wallet.id}`, { token: u.accessToken })
    expect(history.body.data.map((x: { id: string }) => x.id)).toContain(sent.results.transactionId)
  }, 60_000)

  test('a signature that does not sign the hash with the wallet\'s key: 400 MPC_SIGNATURE_INVALID, nothing broadcast; a used prepared transaction cannot be signed again', async () => {
    const prep = await w.api.post('/v1/transactions/', { walletId: made.wallet.id, chain: 'sepolia', toAddress: TO, amount: '1000' }, { token: u.accessToken })
    const start = await w.api.post(`/v1/mpc/wallets/${made.wallet.id}/sign/start`, { preparedTransactionId: prep.body.preparedTransactionId, parties: [0, 2] }, { token: u.accessToken })
    expect(start.status).toBe(200)
    expect(start.body.messageHash).toBe(prep.body.signingHash)
    const hash = await w.api.get(`/v1/mpc/relay/session/${start.body.sessionId}/msghash`, { token: u.accessToken })
    expect(hash.body).toMatchObject({ messageHash: prep.body.signingHash, chainPath: 'm' })
    await w.api.post(`/v1/mpc/relay/session/${start.body.sessionId}/join`, { partyId: 0 }, { token: u.accessToken })
    const bad = await w.api.post(`/v1/mpc/relay/session/${start.body.sessionId}/result`, { partyId: 0, signature: { r: `0x${'12'.repeat(32)}`, s: `0x${'34'.repeat(32)}` } }, { token: u.accessToken })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('MPC_SIGNATURE_INVALID')
    expect((await w.api.get(`/v1/transactions/${prep.body.id}`, { token: u.accessToken })).body).toMatchObject({ status: 'awaiting_signature', txHash: null })
    // the send of the test before: its prepared transaction is spent
    const history = await w.api.get(`/v1/transactions/?walletId=${made.wallet.id}&status=confirmed`, { token: u.accessToken })
    const spent = history.body.data[0]
    const again = await w.api.post(`/v1/mpc/wallets/${made.wallet.id}/sign/start`, { preparedTransactionId: spent.id }, { token: u.accessToken })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('PREPARED_TX_ALREADY_USED')
  }, 60_000)

  test('the service party\'s share is sealed at rest, and neither it nor the device\'s share is in the database, the logs or an answer', async () => {
    const db = w.t.deps.database.db
    const [row] = await db.select().from(mpcServiceShares).where(eq(mpcServiceShares.walletId, made.wallet.id))
    expect(row!.shareSealed).toMatch(/^v1\./)
    const clear = w.t.deps.sealer.openBytes(row!.shareSealed, `mpc_share:${w.tenant.id}:${made.sessionId}`)
    const share = await (await loadMpcEngine(process.env.MPC_ENGINE)).describeShare(new Uint8Array(clear))
    expect({ partyId: share.partyId, publicKey: `0x${Buffer.from(share.publicKey).toString('hex')}` }).toEqual({ partyId: 1, publicKey: made.wallet.publicKey })
    // pieces of each share in the encodings a leak would take
    const pieces = (bytes: Uint8Array) => [0.25, 0.5, 0.75].flatMap((at) => {
      const slice = Buffer.from(bytes).subarray(Math.floor(bytes.length * at), Math.floor(bytes.length * at) + 48)
      return [slice.toString('base64').slice(4, 40), slice.toString('hex'), slice.toString('base64url').slice(4, 40)]
    })
    const secrets = [...pieces(new Uint8Array(clear)), ...pieces(made.device.keyshare), ...pieces(made.backup.keyshare)]
    const stored = JSON.stringify(await Promise.all([mpcSessions, mpcMessages, mpcResults, mpcServiceShares, wallets].map((table) => db.select().from(table as never))))
    const admin = await w.f.tenantAdmin(w.tenant)
    const answers = JSON.stringify(await Promise.all([
      w.api.get(`/v1/mpc/relay/session/${made.sessionId}/results`, { token: u.accessToken }),
      w.api.get(`/v1/mpc/admin/wallets/${w.tenant.id}`, { token: admin.accessToken }),
      w.api.get(`/v1/wallets/${made.wallet.id}`, { token: u.accessToken }),
    ].map(async (r) => (await r).body)))
    expect(answers).toContain(made.wallet.publicKey)
    const logs = w.t.logs.join('\n')
    for (const piece of secrets) {
      expect(stored.includes(piece)).toBe(false)
      expect(answers.includes(piece)).toBe(false)
      expect(logs.includes(piece)).toBe(false)
    }
    expect(logs).toContain('mpc service party: key generated')
  })

  test('device + backup sign without the service party', async () => {
    const before = await reader(w.chain.url).balance(TO)
    const sent = await mpcSend(w, u, made.wallet.id, { 0: made.device.keyshare, 2: made.backup.keyshare }, [0, 2], TO, '2000000000000000')
    expect(sent.results).toMatchObject({ status: 'completed', txHash: expect.stringMatching(/^0x/) })
    expect(sent.results.results.map((r: { partyId: number }) => r.partyId).sort()).toEqual([0, 2])
    await until(() => w.api.get(`/v1/transactions/${sent.results.transactionId}/status`, { token: u.accessToken }), (r) => r.body.status === 'confirmed')
    expect(await reader(w.chain.url).balance(TO)).toBe(before + 2_000_000_000_000_000n)
  }, 60_000)
})
