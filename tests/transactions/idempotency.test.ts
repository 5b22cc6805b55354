/** `Idempotency-Key` on `POST /v1/transactions/`: a repeat with the key sends nothing again; without it, it sends again. */
import { expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { sendWorld } from './send-world'

const sw = sendWorld()
const { funded } = sw

test('the same key and body answers the first send again; the chain sees one transfer; without the key a repeat sends again', async () => {
  const u = await sw.f.user(sw.tenant)
  const w = await funded(u)
  const to = privateKeyToAccount(generatePrivateKey()).address
  const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1000' }
  const key = crypto.randomUUID()
  const first = await sw.f.api.post('/v1/transactions/', body, { token: u.accessToken, headers: { 'idempotency-key': key } })
  expect(first.status).toBe(201)
  expect(first.headers.get('idempotency-replayed')).toBe('false')
  const again = await sw.f.api.post('/v1/transactions/', { amount: '1000', toAddress: to, chain: 'ethereum', walletId: w.id }, { token: u.accessToken, headers: { 'idempotency-key': key } })
  expect(again.status).toBe(201)
  expect(again.body).toEqual(first.body)
  expect(again.headers.get('idempotency-replayed')).toBe('true')
  const other = await sw.f.api.post('/v1/transactions/', { ...body, amount: '2000' }, { token: u.accessToken, headers: { 'idempotency-key': key } })
  expect(other.status).toBe(409)
  expect(other.body.details).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED' })
  const list = await sw.f.api.get('/v1/transactions/', { token: u.accessToken })
  expect(list.body.pagination.total).toBe(1)
  // the node mines each submission at once: one transfer so far
  expect(await sw.chain.balance(to)).toBe(1000n)
  // without the header a repeat sends again, as the spec says
  const plain = await sw.f.api.post('/v1/transactions/', body, { token: u.accessToken })
  expect(plain.status).toBe(201)
  expect(plain.headers.get('idempotency-replayed')).toBe('false')
  expect(plain.body.id).not.toBe(first.body.id)
  expect((await sw.f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(2)
  expect(await sw.chain.balance(to)).toBe(2000n)
})

test('an invalid key: 400 IDEMPOTENCY_KEY_INVALID and nothing is sent', async () => {
  const u = await sw.f.user(sw.tenant)
  const w = await funded(u)
  const res = await sw.f.api.post('/v1/transactions/', { walletId: w.id, chain: 'ethereum', toAddress: w.address, amount: '1' }, { token: u.accessToken, headers: { 'idempotency-key': 'no spaces allowed' } })
  expect(res.status).toBe(400)
  expect(res.body.details).toEqual({ code: 'IDEMPOTENCY_KEY_INVALID' })
  expect((await sw.f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(0)
})
