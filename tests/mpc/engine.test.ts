/**
 * The MPC engine behind its port (src/adapters/mpc/port.ts): a deployment names another engine's
 * module with MPC_ENGINE; GET /v1/mpc/config names it, the service party runs it, and a wallet
 * made and signed with it sends on the local chain. A module without an engine's shape is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { parseEther, type Address } from 'viem'
import { loadMpcEngine } from '@/adapters/mpc/engine'
import type { SignedInUser } from '@tests/helpers/factories'
import { reader } from '@tests/transactions/helpers'
import { runs } from './fixtures/counting-engine'
import { mpcSend, mpcWallet, mpcWorld, type MpcWorld } from './world'

const ENGINE = join(import.meta.dir, 'fixtures/counting-engine.ts')
const TO: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0005'
let w: MpcWorld
let u: SignedInUser

beforeAll(async () => {
  w = await mpcWorld({ env: { MPC_ENGINE: ENGINE } })
  u = await w.f.user(w.tenant)
}, 30_000)
afterAll(async () => w?.stop())

describe('MPC_ENGINE', () => {
  test('the configured engine is named by GET /v1/mpc/config and run by the service party; its wallet signs a send that is mined', async () => {
    const config = await w.api.get('/v1/mpc/config', { token: u.accessToken })
    expect(config.status).toBe(200)
    expect(config.body).toMatchObject({ enabled: true, protocol: 'DKLs23', library: 'counting-engine@1.0.0', threshold: 2, participants: 3 })
    const engine = await loadMpcEngine(ENGINE)
    const before = { ...runs }
    // the device and the backup run the configured engine too
    const made = await mpcWallet(w, u, engine)
    expect(runs.dkg - before.dkg).toBe(3)
    await w.chain.sendNative(made.wallet.address, parseEther('1'))
    const sent = await mpcSend(w, u, made.wallet.id, { 0: made.device.keyshare }, [0, 1], TO, '1000', engine)
    expect(sent.results).toMatchObject({ status: 'completed', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(runs.sign - before.sign).toBe(2)
    expect(await reader(w.chain.url).balance(TO)).toBe(1000n)
  }, 90_000)

  test('a module without an engine of the port\'s shape is refused, and the next load tries again', async () => {
    const bad = join(import.meta.dir, 'fixtures/not-an-engine.ts')
    await expect(loadMpcEngine(bad)).rejects.toThrow(`MPC_ENGINE=${bad}: not an MPC engine`)
    await expect(loadMpcEngine(join(import.meta.dir, 'fixtures/missing.ts'))).rejects.toThrow()
  })
})
