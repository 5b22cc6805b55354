/**
 * MPC end to end with the device-side example (scripts/mpc-device.ts): it makes a wallet
 * through the relay and sends from it; with the device lost, the backup opened with the
 * recovery key signs with the service party. Apart from e2e.test.ts (each runs a DKG).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { createDecipheriv } from 'node:crypto'
import { makeWallet, send } from '../../scripts/mpc-device'
import { mpcSend, mpcWorld, relayOf, until, type MpcWorld } from './world'

let w: MpcWorld
const TO: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0002'

beforeAll(async () => {
  w = await mpcWorld()
}, 30_000)
afterAll(async () => w?.stop())

describe('the device-side example (scripts/mpc-device.ts)', () => {
  /** Opens the example's sealed backup (`iv ‖ tag ‖ ciphertext`) with the recovery key. */
  const openBackup = (sealed: string, key: string) => {
    const raw = Buffer.from(sealed, 'base64')
    const d = createDecipheriv('aes-256-gcm', Buffer.from(key, 'base64'), raw.subarray(0, 12))
    d.setAuthTag(raw.subarray(12, 28))
    return new Uint8Array(Buffer.concat([d.update(raw.subarray(28)), d.final()]))
  }

  test('makes a wallet and sends from it; after losing the device, the backup opened with the recovery key signs with the service party', async () => {
    const owner = await w.f.user(w.tenant)
    const relay = relayOf(w, owner)
    const made = await makeWallet(relay, 'sepolia')
    expect(made.wallet).toMatchObject({ keyManagementScheme: 'mpc_tss', isPrimary: true })
    await w.chain.sendNative(made.wallet.address, parseEther('1'))
    const first = await send(relay, made.wallet.id, made.deviceShare, 'sepolia', TO, '3000')
    expect(first.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    // the device is gone: service (1) and the recovered backup (2)
    const backup = openBackup(made.sealedBackup, made.recoveryKey)
    const recovered = await mpcSend(w, owner, made.wallet.id, { 2: backup }, [1, 2], TO, '4000')
    expect(recovered.results).toMatchObject({ status: 'completed', txHash: expect.stringMatching(/^0x/) })
    await until(() => w.api.get(`/v1/transactions/${recovered.results.transactionId}/status`, { token: owner.accessToken }), (r) => r.body.status === 'confirmed')
    // a wrong recovery key opens nothing
    expect(() => openBackup(made.sealedBackup, Buffer.alloc(32, 1).toString('base64'))).toThrow()
  }, 60_000)
})
