/** The body stage: what is not a JSON object never reaches a route, and never answers 500. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let admin: string
let tenant: Tenant
beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  admin = await f.adminToken()
  tenant = await f.tenant()
})
afterAll(() => t.close())

const patch = (body: string, contentType: string) =>
  t.handle(new Request(`http://slipway.test/v1/admin/tenants/${tenant.id}`, { method: 'PATCH', headers: { authorization: `Bearer ${admin}`, 'content-type': contentType }, body }))

describe('a body that is not a JSON object', () => {
  for (const body of ['"hello"', '[1]', '42', 'null', 'true']) {
    test(`JSON ${body} answers 400 and changes nothing`, async () => {
      const before = await f.api.get(`/v1/admin/tenants/${tenant.id}`, { token: admin })
      const res = await patch(body, 'application/json')
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Request body must be a JSON object' })
      expect((await f.api.get(`/v1/admin/tenants/${tenant.id}`, { token: admin })).body).toEqual(before.body)
    })
  }
  for (const [contentType, body] of [['text/plain', 'hello'], ['application/x-www-form-urlencoded', 'a=1'], ['application/xml', '<a/>'], ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--']] as const) {
    test(`${contentType.split(';')[0]} answers a 4xx in the envelope, never 500`, async () => {
      const res = await patch(body, contentType)
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(res.status).toBeLessThan(500)
      expect(await res.json()).toMatchObject({ statusCode: res.status, error: expect.any(String), message: expect.any(String) })
    })
  }
})
