/**
 * The relay's rules and the MPC flows' refusals, in process on a fresh database (no job
 * worker: the service party is played here with a service token when a test needs it).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let mpc: Tenant
let other: Tenant
let custodial: Tenant
let u: SignedInUser
let neighbour: SignedInUser
let stranger: SignedInUser
let serviceToken: string
let otherServiceToken: string

const clock = new ManualClock(Date.now())
const KEY_A = `0x02${'11'.repeat(32)}`
const KEY_B = `0x03${'22'.repeat(32)}`
const as = (token: string) => ({ token })
const relay = (id: string, rest: string) => `/v1/mpc/relay/session/${id}/${rest}`

async function dkg(user = u) {
  const s = await f.api.post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, as(user.accessToken))
  expect(s.status).toBe(200)
  return s.body.sessionId as string
}

async function token(tenant: Tenant) {
  const res = await f.api.post('/v1/mpc/service/token', undefined, { signedBy: tenant })
  expect(res.status).toBe(200)
  // read before toMatchObject: bun's matcher leaves its asymmetric matchers in the object it checked
  const tok = res.body.token as string
  expect(tok).toMatch(/^mpcs\./)
  expect(res.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 300 })
  return tok
}

beforeAll(async () => {
  t = await makeApp({ clock })
  f = new Factory(t)
  mpc = await f.tenant({ walletMode: 'mpc' })
  other = await f.tenant({ walletMode: 'mpc' })
  custodial = await f.tenant()
  u = await f.user(mpc)
  neighbour = await f.user(mpc)
  stranger = await f.user(other)
  serviceToken = await token(mpc)
  otherServiceToken = await token(other)
})
afterAll(() => t.close())

describe('flows', () => {
  test('config: the protocol, the parties, who holds each share, the limits', async () => {
    const res = await f.api.get('/v1/mpc/config', as(u.accessToken))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ enabled: true, protocol: 'DKLs23', library: '@silencelaboratories/dkls-wasm-ll-node@1.1.2', threshold: 2, participants: 3, rounds: { dkg: 5, sign: 4 }, sessionTtlSeconds: 300 })
    expect(res.body.parties.map((p: { role: string }) => p.role)).toEqual(['device', 'service', 'backup'])
    expect(res.body.chains).toContain('ethereum')
    expect(res.body.chains).not.toContain('solana')
    const off = await f.api.get('/v1/mpc/config', as((await f.user(custodial)).accessToken))
    expect(off.body.enabled).toBe(false)
  })

  test('dkg/start: three parties, open, expiring; Solana answers MPC_CHAIN_UNSUPPORTED; a custodial tenant MPC_NOT_ENABLED', async () => {
    const s = await f.api.post('/v1/mpc/wallets/dkg/start', { chain: 'ethereum', isTestnet: true }, as(u.accessToken))
    expect(s.status).toBe(200)
    expect(s.body).toMatchObject({ kind: 'dkg', status: 'open', chain: 'ethereum', isTestnet: true, threshold: 2, participants: 3, rounds: 5, walletId: null, messageHash: null })
    expect(s.body.parties).toEqual([
      { partyId: 0, role: 'device', joined: false, joinedAt: null },
      { partyId: 1, role: 'service', joined: false, joinedAt: null },
      { partyId: 2, role: 'backup', joined: false, joinedAt: null },
    ])
    expect(Date.parse(s.body.expiresAt) - clock.now()).toBe(300_000)
    const sol = await f.api.post('/v1/mpc/wallets/dkg/start', { chain: 'solana' }, as(u.accessToken))
    expect(sol.status).toBe(400)
    expect(sol.body).toMatchObject({ code: 'MPC_CHAIN_UNSUPPORTED', message: expect.stringContaining('threshold EdDSA') })
    const off = await f.api.post('/v1/mpc/wallets/dkg/start', { chain: 'ethereum' }, as((await f.user(custodial)).accessToken))
    expect(off.status).toBe(403)
    expect(off.body.code).toBe('MPC_NOT_ENABLED')
    for (const bad of [{}, { chain: '' }, { chain: 'ethereum', isTestnet: 'yes' }, { chain: 'nowhere' }]) {
      expect((await f.api.post('/v1/mpc/wallets/dkg/start', bad, as(u.accessToken))).status).toBe(400)
    }
  })

  test('registration with a wallet on an mpc tenant opens the DKG session instead of making a wallet', async () => {
    const res = await f.api.post('/v1/auth/register', { username: 'mpcnew', email: 'mpcnew@example.com', password: 'Passw0rd-long', wallet: { option: 'create', chain: 'ethereum' } }, { signedBy: mpc })
    expect(res.status).toBe(201)
    expect(res.body.wallet).toBeUndefined()
    expect(res.body.mpcDkg).toMatchObject({ kind: 'dkg', status: 'open', chain: 'ethereum', parties: [{ partyId: 0 }, { partyId: 1 }, { partyId: 2 }] })
    const joined = await f.api.post(relay(res.body.mpcDkg.sessionId, 'join'), { partyId: 0 }, as(res.body.accessToken))
    expect(joined.status).toBe(200)
    // a chain the DKG cannot use is refused before the user is written
    const sol = await f.api.post('/v1/auth/register', { username: 'mpcsol', email: 'mpcsol@example.com', password: 'Passw0rd-long', wallet: { option: 'create', chain: 'solana' } }, { signedBy: mpc })
    expect(sol.status).toBe(400)
    expect((await f.api.post('/v1/auth/login', { username: 'mpcsol', password: 'Passw0rd-long' }, { signedBy: mpc })).status).toBe(401)
  })

  test('registering a wallet: before every party reported 409 MPC_DKG_INCOMPLETE; different keys 409 MPC_PUBLIC_KEY_MISMATCH; another user\'s session 404', async () => {
    const id = await dkg()
    for (const p of [0, 2]) expect((await f.api.post(relay(id, 'join'), { partyId: p }, as(u.accessToken))).status).toBe(200)
    expect((await f.api.post(relay(id, 'join'), { partyId: 1 }, as(serviceToken))).status).toBe(200)
    await f.api.post(relay(id, 'result'), { partyId: 0, publicKey: KEY_A }, as(u.accessToken))
    const early = await f.api.post('/v1/mpc/wallets', { sessionId: id }, as(u.accessToken))
    expect(early.status).toBe(409)
    expect(early.body).toMatchObject({ code: 'MPC_DKG_INCOMPLETE', details: { reported: [0] } })
    await f.api.post(relay(id, 'result'), { partyId: 1, publicKey: KEY_A }, as(serviceToken))
    const last = await f.api.post(relay(id, 'result'), { partyId: 2, publicKey: KEY_B }, as(u.accessToken))
    expect(last.status).toBe(200)
    expect(last.body).toMatchObject({ status: 'failed', publicKey: null, failureReason: 'The parties reported different public keys' })
    const reg = await f.api.post('/v1/mpc/wallets', { sessionId: id }, as(u.accessToken))
    expect(reg.status).toBe(409)
    expect(reg.body.code).toBe('MPC_PUBLIC_KEY_MISMATCH')
    expect((await f.api.post('/v1/mpc/wallets', { sessionId: id }, as(neighbour.accessToken))).status).toBe(404)
    expect((await f.api.post('/v1/mpc/wallets', { sessionId: id }, as(stranger.accessToken))).status).toBe(404)
    // a party that reports another key again
    const changed = await f.api.post(relay(id, 'result'), { partyId: 0, publicKey: KEY_B }, as(u.accessToken))
    expect(changed.status).toBe(409)
    expect(changed.body.code).toBe('MPC_RESULT_CONFLICT')
    expect((await f.api.get('/v1/wallets/', as(u.accessToken))).body.data).toEqual([])
  })

  test('sign/start: an unknown or another tenant\'s wallet 404; a wallet that is not MPC 400', async () => {
    const unknown = await f.api.post('/v1/mpc/wallets/00000000-0000-4000-8000-000000000000/sign/start', { preparedTransactionId: '00000000-0000-4000-8000-000000000000' }, as(u.accessToken))
    expect(unknown.status).toBe(404)
    const owner = await f.user(custodial)
    const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(owner.accessToken))
    expect(w.status).toBe(201)
    const mine = await f.api.post(`/v1/mpc/wallets/${w.body.id}/sign/start`, { preparedTransactionId: '00000000-0000-4000-8000-000000000000' }, as(owner.accessToken))
    expect(mine.status).toBe(400)
    expect(mine.body.code).toBe('MPC_NOT_AN_MPC_WALLET')
    const theirs = await f.api.post(`/v1/mpc/wallets/${w.body.id}/sign/start`, { preparedTransactionId: '00000000-0000-4000-8000-000000000000' }, as(stranger.accessToken))
    expect(theirs.status).toBe(404)
    expect((await f.api.post(`/v1/mpc/wallets/${w.body.id}/sign/start`, { preparedTransactionId: 'x', parties: [0, 0] }, as(owner.accessToken))).status).toBe(400)
  })

  test('the operators\' list: a tenantadmin for its own tenant, 404 for another; users 403', async () => {
    const admin = await f.tenantAdmin(mpc)
    const own = await f.api.get(`/v1/mpc/admin/wallets/${mpc.id}`, as(admin.accessToken))
    expect(own.status).toBe(200)
    expect(own.body).toMatchObject({ data: [], total: 0, limit: 50, offset: 0, hasMore: false })
    expect((await f.api.get(`/v1/mpc/admin/wallets/${other.id}`, as(admin.accessToken))).status).toBe(404)
    expect((await f.api.get(`/v1/mpc/admin/wallets/${mpc.id}`, as(u.accessToken))).status).toBe(403)
  })
})

describe('who may act in a session', () => {
  test('no token 401; a forged or expired service token 401; a service token is no access token', async () => {
    const id = await dkg()
    expect((await f.api.post(relay(id, 'join'), { partyId: 0 })).status).toBe(401)
    const [head, payload] = [serviceToken.slice(0, serviceToken.lastIndexOf('.')), serviceToken.slice(serviceToken.lastIndexOf('.') + 1)]
    const forged = `${head}.${payload.startsWith('A') ? 'B' : 'A'}${payload.slice(1)}`
    expect((await f.api.post(relay(id, 'join'), { partyId: 1 }, as(forged))).status).toBe(401)
    expect((await f.api.get('/v1/wallets/', as(serviceToken))).status).toBe(401)
    const late = new ManualClock(clock.now())
    const t2 = await makeApp({ clock: late })
    const f2 = new Factory(t2)
    const tenant2 = await f2.tenant({ walletMode: 'mpc' })
    const tok = (await f2.api.post('/v1/mpc/service/token', undefined, { signedBy: tenant2 })).body.token
    const u2 = await f2.user(tenant2)
    const id2 = (await f2.api.post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, as(u2.accessToken))).body.sessionId
    expect((await f2.api.post(relay(id2, 'join'), { partyId: 1 }, as(tok))).status).toBe(200)
    late.advance(301_000)
    expect((await f2.api.get(relay(id2, 'parties'), as(tok))).status).toBe(401)
    await t2.close()
  })

  test('another user of the tenant, or a party id the token cannot hold: 403 MPC_NOT_A_PARTY', async () => {
    const id = await dkg()
    for (const [path, body] of [['join', { partyId: 0 }], ['msg', { from: 0, round: 1, payload: 'AAEC' }], ['result', { partyId: 0, publicKey: KEY_A }]] as const) {
      const res = await f.api.post(relay(id, path), body, as(neighbour.accessToken))
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'MPC_NOT_A_PARTY' })
    }
    for (const path of ['parties', 'inbox?partyId=0', 'results']) expect((await f.api.get(relay(id, path), as(neighbour.accessToken))).status).toBe(403)
    // the user is the device and the backup, never the service party; the service token only the service party
    expect((await f.api.post(relay(id, 'join'), { partyId: 1 }, as(u.accessToken))).status).toBe(403)
    expect((await f.api.post(relay(id, 'join'), { partyId: 0 }, as(serviceToken))).status).toBe(403)
    expect((await f.api.get(relay(id, 'inbox?partyId=1'), as(u.accessToken))).status).toBe(403)
  })

  test('another tenant\'s user or service token: 404 like an unknown session', async () => {
    const id = await dkg()
    for (const who of [stranger.accessToken, otherServiceToken]) {
      const join = await f.api.post(relay(id, 'join'), { partyId: who === otherServiceToken ? 1 : 0 }, as(who))
      const unknown = await f.api.post(relay('00000000-0000-4000-8000-000000000000', 'join'), { partyId: 0 }, as(who))
      expect(join.status).toBe(404)
      expect(join.body).toEqual(unknown.body)
      expect((await f.api.get(relay(id, 'results'), as(who))).status).toBe(404)
    }
    expect((await f.api.get(relay('not-a-uuid', 'results'), as(u.accessToken))).status).toBe(400)
  })
})

describe('messages', () => {
  test('a party sees what is addressed to it and what others broadcast, in order; never its own or others\' private messages', async () => {
    const id = await dkg()
    for (const p of [0, 2]) await f.api.post(relay(id, 'join'), { partyId: p }, as(u.accessToken))
    await f.api.post(relay(id, 'join'), { partyId: 1 }, as(serviceToken))
    const send = (from: number, to: number | null, round: number, payload: string, tok = from === 1 ? serviceToken : u.accessToken) =>
      f.api.post(relay(id, 'msg'), { from, to, round, payload }, as(tok))
    expect((await send(0, null, 1, 'AAAA')).status).toBe(201)
    expect((await send(1, null, 1, 'AQEB')).status).toBe(201)
    expect((await send(2, null, 1, 'AgIC')).status).toBe(201)
    expect((await send(0, 1, 2, 'MDEy')).status).toBe(201)
    expect((await send(0, 2, 2, 'MDIy')).status).toBe(201)
    const inbox1 = await f.api.get(relay(id, 'inbox?partyId=1'), as(serviceToken))
    expect(inbox1.body.messages.map((m: { from: number; to: number | null; round: number; payload: string }) => [m.from, m.to, m.round, m.payload])).toEqual([[0, null, 1, 'AAAA'], [2, null, 1, 'AgIC'], [0, 1, 2, 'MDEy']])
    const seqs = inbox1.body.messages.map((m: { seq: number }) => m.seq)
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs)
    expect(inbox1.body.last).toBe(seqs.at(-1))
    // paging on with `after`, and one round at a time
    expect((await f.api.get(relay(id, `inbox?partyId=1&after=${inbox1.body.last}`), as(serviceToken))).body).toMatchObject({ messages: [], last: inbox1.body.last })
    const round2 = await f.api.get(relay(id, 'inbox?partyId=2&round=2'), as(u.accessToken))
    expect(round2.body.messages.map((m: { from: number; to: number }) => [m.from, m.to])).toEqual([[0, 2]])
  })

  test('a party must join first; the same round, sender and receiver again 409 MPC_MESSAGE_REPLAYED; rounds out of order 409', async () => {
    const id = await dkg()
    const send = (from: number, to: number | null, round: number) => f.api.post(relay(id, 'msg'), { from, to, round, payload: 'AAEC' }, as(u.accessToken))
    const early = await send(0, null, 1)
    expect(early.status).toBe(403)
    expect(early.body.code).toBe('MPC_NOT_JOINED')
    await f.api.post(relay(id, 'join'), { partyId: 0 }, as(u.accessToken))
    expect((await send(0, null, 1)).status).toBe(201)
    const replay = await send(0, null, 1)
    expect(replay.status).toBe(409)
    expect(replay.body.code).toBe('MPC_MESSAGE_REPLAYED')
    // 20 copies of one message at once: one is taken
    await f.api.post(relay(id, 'join'), { partyId: 2 }, as(u.accessToken))
    const many = await Promise.all(Array.from({ length: 20 }, () => send(2, null, 1)))
    expect(many.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(409)])
    const skip = await send(0, 1, 3)
    expect(skip.status).toBe(409)
    expect(skip.body.code).toBe('MPC_MESSAGE_OUT_OF_ORDER')
    expect((await send(0, 1, 2)).status).toBe(201)
    const back = await send(0, 2, 1)
    expect(back.status).toBe(409)
    expect(back.body.code).toBe('MPC_MESSAGE_OUT_OF_ORDER')
    // nothing the refusals carried was kept
    expect((await f.api.get(relay(id, 'inbox?partyId=1'), as(serviceToken))).body.messages.map((m: { from: number; round: number }) => `${m.from}:${m.round}`)).toEqual(['0:1', '2:1', '0:2'])
  })

  test('bad recipients and rounds 400; payloads over 128 KiB 413; a session holds at most 32 messages', async () => {
    const id = await dkg()
    await f.api.post(relay(id, 'join'), { partyId: 0 }, as(u.accessToken))
    const post = (body: unknown) => f.api.post(relay(id, 'msg'), body, as(u.accessToken))
    expect((await post({ from: 0, to: 0, round: 1, payload: 'AAEC' })).body.code).toBe('MPC_BAD_RECIPIENT')
    expect((await post({ from: 0, to: 3, round: 1, payload: 'AAEC' })).status).toBe(400)
    expect((await post({ from: 0, round: 6, payload: 'AAEC' })).status).toBe(400)
    expect((await post({ from: 0, round: 1, payload: 'not base64!' })).status).toBe(400)
    expect((await post({ from: 0, round: 1 })).status).toBe(400)
    const big = await post({ from: 0, round: 1, payload: Buffer.alloc(128 * 1024 + 1).toString('base64') })
    expect(big.status).toBe(413)
    expect(big.body.code).toBe('MPC_MESSAGE_TOO_LARGE')
    expect((await post({ from: 0, round: 1, payload: Buffer.alloc(128 * 1024).toString('base64') })).status).toBe(201)
    // every party sends to everyone in every round: 45 possible, 32 kept
    await f.api.post(relay(id, 'join'), { partyId: 2 }, as(u.accessToken))
    await f.api.post(relay(id, 'join'), { partyId: 1 }, as(serviceToken))
    const statuses: number[] = []
    for (let round = 1; round <= 5; round++) {
      for (const from of [0, 1, 2]) {
        for (const to of [null, ...[0, 1, 2].filter((p) => p !== from)]) {
          if (round === 1 && from === 0 && to === null) continue
          const res = await f.api.post(relay(id, 'msg'), { from, to, round, payload: 'AAEC' }, as(from === 1 ? serviceToken : u.accessToken))
          statuses.push(res.status)
          if (res.status === 409) expect(res.body.code).toBe('MPC_SESSION_FULL')
        }
      }
    }
    expect(statuses.filter((s) => s === 201).length).toBe(31)
    expect(statuses.filter((s) => s === 409).length).toBe(44 - 31)
  })

  test('an expired session answers 410 MPC_SESSION_EXPIRED to joins, messages, inbox reads and results', async () => {
    const id = await dkg()
    await f.api.post(relay(id, 'join'), { partyId: 0 }, as(u.accessToken))
    clock.advance(300_001)
    try {
      for (const [path, body] of [['join', { partyId: 0 }], ['msg', { from: 0, round: 1, payload: 'AAEC' }], ['result', { partyId: 0, publicKey: KEY_A }]] as const) {
        const res = await f.api.post(relay(id, path), body, as(u.accessToken))
        expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 410, code: 'MPC_SESSION_EXPIRED' })
      }
      expect((await f.api.get(relay(id, 'inbox?partyId=0'), as(u.accessToken))).status).toBe(410)
      expect((await f.api.post('/v1/mpc/wallets', { sessionId: id }, as(u.accessToken))).status).toBe(410)
      // what happened stays readable
      expect((await f.api.get(relay(id, 'results'), as(u.accessToken))).status).toBe(200)
    } finally {
      // the tests after this one start sessions on the advanced clock
      serviceToken = await token(mpc)
      otherServiceToken = await token(other)
    }
  })

  test('msghash: a DKG session signs nothing (400 MPC_NOT_A_SIGNING_SESSION); results take only the session kind\'s shape', async () => {
    const id = await dkg()
    const res = await f.api.get(relay(id, 'msghash'), as(u.accessToken))
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('MPC_NOT_A_SIGNING_SESSION')
    const sig = await f.api.post(relay(id, 'result'), { partyId: 0, signature: { r: `0x${'1'.repeat(64)}`, s: `0x${'2'.repeat(64)}` } }, as(u.accessToken))
    expect(sig.status).toBe(400)
    expect(sig.body.code).toBe('MPC_BAD_RESULT')
    expect((await f.api.post(relay(id, 'result'), { partyId: 0, publicKey: '0x04abc' }, as(u.accessToken))).status).toBe(400)
  })
})
