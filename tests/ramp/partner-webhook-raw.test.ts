/** The partner's webhook: the signature is checked first, over the bytes as received (docs/bank-ramp.md, Partner events). */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { rampWorld, type RampTenant, type RampWorld } from './world'

let w: RampWorld
let tenant: RampTenant
beforeAll(async () => {
  w = await rampWorld()
  tenant = await w.rampTenant()
})
afterAll(() => w.stop())

const deliver = async (body: Uint8Array | string, signature?: string) => {
  const res = await w.t.handle(new Request(tenant.webhookUrl, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/json', ...(signature ? { 'webhook-signature': signature } : {}) } }))
  return { status: res.status, body: await res.json() as any }
}
const now = () => Math.floor(w.t.clock.now() / 1000)
const sign = (data: Uint8Array | string, t = now()) => `t=${t},v1=${createHmac('sha256', tenant.webhookKey).update(`${t}.`).update(data).digest('hex')}`

test('unsigned bodies are refused as unsigned (401) whatever they hold: an array, broken JSON, a string', async () => {
  for (const body of ['[1,2]', '{"EventType":', '"hello"', 'null']) {
    const res = await deliver(body)
    expect({ body, status: res.status }).toEqual({ body, status: 401 })
    expect(res.body).toMatchObject({ statusCode: 401, error: 'UnauthorizedError', details: { reason: 'missing' } })
  }
  // a wrong signature over a body that is not an object: 401 too, nothing parsed first
  expect((await deliver('[1,2]', 't=1,v1=00')).status).toBe(401)
})

test('the signature is over the bytes: one made over the decoded text of bytes that are not UTF-8 does not verify', async () => {
  const event = new TextEncoder().encode(JSON.stringify({ EventType: 'FiatDeposit', EventVersion: 1, Data: { ID: 'raw-test', PaymentMethodID: 'none', Note: 'X' } }))
  // replace the X with a byte that is not UTF-8: decoding makes it U+FFFD
  const bytes = event.slice()
  bytes[bytes.lastIndexOf(0x58)] = 0xff
  const decoded = new TextDecoder().decode(bytes)
  const res = await deliver(bytes, sign(decoded))
  expect(res.status).toBe(401)
  expect(res.body.details).toEqual({ reason: 'mismatch' })
  // signed over its bytes, the same delivery verifies, then is refused for what it is: 400, not JSON text
  const signed = await deliver(bytes, sign(bytes))
  expect(signed.status).toBe(400)
})

test('a signed array is a bad event (400) only once the signature passed; a signed event is applied', async () => {
  expect((await deliver('[1,2]', sign('[1,2]'))).status).toBe(400)
  const body = JSON.stringify({ EventType: 'FiatDeposit', EventVersion: 1, Data: { ID: 'raw-test-2', PaymentMethodID: 'none' } })
  const ok = await deliver(body, sign(body))
  expect(ok.status).toBe(200)
  expect(ok.body.received).toBe(true)
})
