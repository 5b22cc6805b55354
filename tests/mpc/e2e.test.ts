/**
 * MPC end to end over HTTP (issue 26): a device party and a backup party here, with the same
 * library as the service party, run DKG with Slipway's service party (the worker's job, over
 * the relay's HTTP routes); the wallet is registered; a send signed by device and service
 * confirms on the local chain; device and backup sign without the service.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
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

  test('device + backup sign without the service party', async () => {
    const before = await reader(w.chain.url).balance(TO)
    const sent = await mpcSend(w, u, made.wallet.id, { 0: made.device.keyshare, 2: made.backup.keyshare }, [0, 2], TO, '2000000000000000')
    expect(sent.results).toMatchObject({ status: 'completed', txHash: expect.stringMatching(/^0x/) })
    expect(sent.results.results.map((r: { partyId: number }) => r.partyId).sort()).toEqual([0, 2])
    await until(() => w.api.get(`/v1/transactions/${sent.results.transactionId}/status`, { token: u.accessToken }), (r) => r.body.status === 'confirmed')
    expect(await reader(w.chain.url).balance(TO)).toBe(before + 2_000_000_000_000_000n)
  }, 60_000)
})
