/** Unknown paths under /sandbox/bank-ramp answer JSON: the partner's error shape under /v1, Slipway's 404 envelope elsewhere. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '../helpers/app'

let t: TestApp
beforeAll(async () => { t = await makeApp() })
afterAll(() => t.close())

const get = (path: string, init?: RequestInit) => t.handle(new Request(`http://slipway.test${path}`, init))

test('an unknown partner API path: 404 with the partner\'s { Type, Detail, Instance }', async () => {
  for (const [method, path] of [['GET', '/sandbox/bank-ramp/v1/nope'], ['POST', '/sandbox/bank-ramp/v1/customers/c1/nothing-here']]) {
    const res = await get(path!, { method, headers: { 'x-api-key': 'whatever' } })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(await res.json()).toEqual({ Type: 'ResourceNotFound', Detail: `No route ${method} ${path}`, Instance: expect.any(String) })
  }
})

test('an unknown path beside the hosted pages: 404 in the spec\'s envelope, as /v1 answers', async () => {
  const res = await get('/sandbox/bank-ramp/nope')
  expect(res.status).toBe(404)
  expect(res.headers.get('content-type')).toContain('application/json')
  const body = await res.json()
  expect(body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Route GET:/sandbox/bank-ramp/nope not found' })
  const v1 = await (await get('/v1/nope')).json() as Record<string, unknown>
  expect(Object.keys(body).sort()).toEqual(Object.keys(v1).sort())
})
