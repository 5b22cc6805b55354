/**
 * Proven addresses over the real adapter and the simulator on its own port: EIP-191 on EVM,
 * ed25519 on Solana, single-use challenges (a wrong signature spends it; a replay is 409),
 * expiry, listing, removal at the partner, bad inputs and isolation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ManualClock } from '@tests/helpers/app'
import type { SignedInUser } from '@tests/helpers/factories'
import { onboard, rampWorld, type RampTenant, type RampWorld } from './world'

let w: RampWorld
let tenant: RampTenant
let user: SignedInUser
const clock = new ManualClock(Date.now())

beforeAll(async () => {
  w = await rampWorld({ app: { clock }, sim: { now: () => clock.now() } })
  tenant = await w.rampTenant({ hook: false })
  user = await w.f.user(tenant)
  await onboard(w, user, 'approve')
})
afterAll(() => w.stop())

const post = (path: string, body: unknown, token = user.accessToken) => w.f.api.post(path, body, { token })
const get = (path: string, token = user.accessToken) => w.f.api.get(path, { token })
const challenge = (chain: string, address: string, token = user.accessToken) => post('/v1/ramp/bank/addresses/challenge', { chain, address, isTestnet: true }, token)
const verify = (challengeId: string, signature: string, token = user.accessToken) => post('/v1/ramp/bank/addresses/verify', { challengeId, signature, isTestnet: true }, token)

describe('proving an address', () => {
  test('EVM: sign the challenge with EIP-191, the address is proven, listed, and removed', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const c = await challenge('ethereum', account.address.toLowerCase())
    expect(c.status).toBe(200)
    // the address comes back checksummed, and the message names it
    expect(c.body).toMatchObject({ environment: 'sandbox', chain: 'ethereum', address: account.address })
    expect(c.body.message).toContain(`Address: ${account.address}`)
    expect(c.body.message).toContain('Environment: sandbox')
    const v = await verify(c.body.challengeId, await account.signMessage({ message: c.body.message }))
    expect(v.status).toBe(200)
    expect(v.body).toMatchObject({ environment: 'sandbox', chain: 'ethereum', address: account.address })
    const list = await get('/v1/ramp/bank/addresses?isTestnet=true')
    expect(list.body.addresses.map((a: { id: string }) => a.id)).toContain(v.body.id)

    const del = await w.f.api.call('DELETE', `/v1/ramp/bank/addresses/${v.body.id}?isTestnet=true`, undefined, { token: user.accessToken })
    expect(del.status).toBe(200)
    expect(del.body).toEqual({ deleted: true, id: v.body.id })
    expect((await get('/v1/ramp/bank/addresses?isTestnet=true')).body.addresses.map((a: { id: string }) => a.id)).not.toContain(v.body.id)
    const again = await w.f.api.call('DELETE', `/v1/ramp/bank/addresses/${v.body.id}?isTestnet=true`, undefined, { token: user.accessToken })
    expect(again.status).toBe(404)
  })

  test('Solana: an ed25519 signature over the message (base58 or base64)', async () => {
    const secret = ed25519.utils.randomPrivateKey()
    const address = base58.encode(ed25519.getPublicKey(secret))
    const c = await challenge('solana', address)
    expect(c.status).toBe(200)
    const sig = ed25519.sign(new TextEncoder().encode(c.body.message), secret)
    const v = await verify(c.body.challengeId, base58.encode(sig))
    expect(v.status).toBe(200)
    expect(v.body).toMatchObject({ chain: 'solana', address })
    const c2 = await challenge('solana', address)
    const v2 = await verify(c2.body.challengeId, Buffer.from(ed25519.sign(new TextEncoder().encode(c2.body.message), secret)).toString('base64'))
    expect(v2.status).toBe(200)
    // proven again: the same record
    expect(v2.body.id).toBe(v.body.id)
  })
})

describe('single use and expiry', () => {
  test('a reused challenge: 409 ADDRESS_CHALLENGE_USED', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const c = await challenge('ethereum', account.address)
    const sig = await account.signMessage({ message: c.body.message })
    expect((await verify(c.body.challengeId, sig)).status).toBe(200)
    const replay = await verify(c.body.challengeId, sig)
    expect(replay.status).toBe(409)
    expect(replay.body.details).toEqual({ code: 'ADDRESS_CHALLENGE_USED' })
  })

  test('a wrong signature: 400 ADDRESS_SIGNATURE_INVALID, and the challenge is spent', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const intruder = privateKeyToAccount(generatePrivateKey())
    const c = await challenge('ethereum', account.address)
    const before = (await get('/v1/ramp/bank/addresses?isTestnet=true')).body.addresses.length
    for (const bad of [await intruder.signMessage({ message: c.body.message }), '0x1234', 'not a signature']) {
      const c2 = await challenge('ethereum', account.address)
      const res = await verify(c2.body.challengeId, bad)
      expect(res.status).toBe(400)
      expect(res.body.details).toEqual({ code: 'ADDRESS_SIGNATURE_INVALID' })
    }
    // the owner signing a different message is wrong too
    const wrongMessage = await verify(c.body.challengeId, await account.signMessage({ message: `${c.body.message}.` }))
    expect(wrongMessage.status).toBe(400)
    const late = await verify(c.body.challengeId, await account.signMessage({ message: c.body.message }))
    expect(late.status).toBe(409)
    expect((await get('/v1/ramp/bank/addresses?isTestnet=true')).body.addresses.length).toBe(before)
  })

  test('an expired challenge: 400 ADDRESS_CHALLENGE_EXPIRED', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const c = await challenge('ethereum', account.address)
    clock.advance(10 * 60_000 + 1)
    const res = await verify(c.body.challengeId, await account.signMessage({ message: c.body.message }))
    expect(res.status).toBe(400)
    expect(res.body.details).toEqual({ code: 'ADDRESS_CHALLENGE_EXPIRED' })
  })
})

describe('refusals and isolation', () => {
  test('bad inputs: an address of the wrong shape, a chain the bank ramp does not take, a bad challenge id: 400', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/v1/ramp/bank/addresses/challenge', { chain: 'ethereum', address: '0x1234', isTestnet: true }],
      ['/v1/ramp/bank/addresses/challenge', { chain: 'solana', address: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F', isTestnet: true }],
      ['/v1/ramp/bank/addresses/challenge', { chain: 'bsc', address: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F', isTestnet: true }],
      ['/v1/ramp/bank/addresses/challenge', { chain: 'nochain', address: 'x', isTestnet: true }],
      ['/v1/ramp/bank/addresses/verify', { challengeId: 'abc', signature: '0x00', isTestnet: true }],
      ['/v1/ramp/bank/addresses/verify', { challengeId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', signature: '', isTestnet: true }],
    ]
    for (const [path, body] of cases) {
      const res = await post(path, body)
      expect({ path, body, status: res.status }).toEqual({ path, body, status: 400 })
    }
  })

  test('a user without a bank ramp profile: 404 RAMP_CUSTOMER_NOT_FOUND', async () => {
    const u = await w.f.user(tenant)
    const res = await challenge('ethereum', privateKeyToAccount(generatePrivateKey()).address, u.accessToken)
    expect(res.status).toBe(404)
    expect(res.body.details.code).toBe('RAMP_CUSTOMER_NOT_FOUND')
  })

  test('another user\'s challenge and address answer 404 like unknown ones, in the tenant and outside it', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const c = await challenge('ethereum', account.address)
    const sig = await account.signMessage({ message: c.body.message })
    const neighbour = await w.f.user(tenant)
    await onboard(w, neighbour, 'approve')
    const t2 = await w.rampTenant({ hook: false })
    const stranger = await w.f.user(t2)
    await onboard(w, stranger, 'approve')
    for (const other of [neighbour, stranger]) {
      const theirs = await verify(c.body.challengeId, sig, other.accessToken)
      const unknown = await verify('6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', sig, other.accessToken)
      expect(theirs.status).toBe(404)
      expect(theirs.body).toEqual(unknown.body)
    }
    // the owner can still use it: the others' tries did not spend it
    const v = await verify(c.body.challengeId, sig)
    expect(v.status).toBe(200)
    for (const other of [neighbour, stranger]) {
      const del = await w.f.api.call('DELETE', `/v1/ramp/bank/addresses/${v.body.id}?isTestnet=true`, undefined, { token: other.accessToken })
      const unknown = await w.f.api.call('DELETE', '/v1/ramp/bank/addresses/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f?isTestnet=true', undefined, { token: other.accessToken })
      expect(del.status).toBe(404)
      expect(del.body).toEqual(unknown.body)
      expect((await get('/v1/ramp/bank/addresses?isTestnet=true', other.accessToken)).body.addresses).toEqual([])
    }
    expect((await get('/v1/ramp/bank/addresses?isTestnet=true')).body.addresses.map((a: { id: string }) => a.id)).toContain(v.body.id)
  })
})
