/**
 * The answers of the OpenAPI document and of the API agree on one shape: every success answer
 * has a real description and an example that its own schema accepts (Ajv, draft 2020-12);
 * every 4xx and 5xx body is the one envelope, `#/components/schemas/Error`; and what the API
 * sends on a schema failure (400) and on an endpoint check (422) lists `details` of one shape,
 * on a sign-in route, on wallet creation and on password reset alike.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, unique, type Tenant } from '@tests/helpers/factories'

type Media = { schema?: Record<string, unknown>; example?: unknown }
type Op = { operationId: string; responses: Record<string, { description?: string; content?: Record<string, Media> }> }
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Record<string, unknown>> } }

let t: TestApp
let f: Factory
let tenant: Tenant
let doc: Doc
const answers = () => Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).flatMap(([method, op]) =>
  Object.entries(op.responses).map(([status, response]) => ({ where: `${method.toUpperCase()} ${path} ${status}`, status, response }))))

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
  doc = await (await t.handle(new Request('http://slipway.test/v1/docs/json'))).json() as Doc
})
afterAll(() => t.close())

/** The keys of one ValidationIssue, as ./src/http/schemas.ts documents them. */
const ISSUE_KEYS = ['instancePath', 'keyword', 'message', 'params', 'path', 'schemaPath']

describe('success answers in the OpenAPI document', () => {
  test('every one has a description of its own, not the generator\'s "Response for status 201"', () => {
    const success = answers().filter((a) => a.status.startsWith('2'))
    expect(success.length).toBeGreaterThanOrEqual(190)
    for (const { where, response } of success) {
      expect(response.description, where).toBeString()
      expect(response.description!.trim().length, where).toBeGreaterThan(3)
      expect(response.description, where).not.toMatch(/^Response for status/)
    }
  })

  test('every body has an example that its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    ajv.addSchema({ $id: 'slipway', components: doc.components })
    let checked = 0
    for (const { where, status, response } of answers()) {
      if (!status.startsWith('2')) continue
      for (const [type, media] of Object.entries(response.content ?? {})) {
        expect(media.schema, `${where} ${type} has a schema`).toBeObject()
        expect(media.example, `${where} ${type} has an example`).not.toBeUndefined()
        const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"slipway#/components/'))
        const valid = ajv.compile(schema)
        expect(valid(media.example) ? [] : valid.errors, `${where} ${type}: its example`).toEqual([])
        checked++
      }
    }
    expect(checked).toBeGreaterThanOrEqual(190)
  }, 60_000)

  test('the schema check fails on an example that breaks its schema', () => {
    const ajv = new Ajv2020({ strict: false })
    addFormats(ajv)
    ajv.addSchema({ $id: 'slipway', components: doc.components })
    const wallet = doc.paths['/v1/wallets/{id}']!.get!.responses['200']!.content!['application/json']!
    const valid = ajv.compile(wallet.schema!)
    expect(valid(wallet.example)).toBe(true)
    expect(valid({ ...(wallet.example as object), createdAt: 'yesterday' })).toBe(false)
  })
})

describe('naming', () => {
  test('one tag per resource: no two tags differ only by case or a plural s', () => {
    const tags = new Set(Object.values(doc.paths).flatMap((byMethod) => Object.values(byMethod).flatMap((op) => (op as { tags?: string[] }).tags ?? [])))
    const key = (tag: string) => tag.toLowerCase().replace(/s$/, '')
    const byKey = new Map<string, string[]>()
    for (const tag of tags) byKey.set(key(tag), [...(byKey.get(key(tag)) ?? []), tag])
    expect([...byKey.values()].filter((same) => same.length > 1)).toEqual([])
    expect(tags.has('Tenants')).toBe(true)
  })

  test('one name per field: no answer property is written in snake_case', () => {
    const snake = new Set<string>()
    const walk = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(walk)
      if (!node || typeof node !== 'object') return
      for (const name of Object.keys((node as { properties?: object }).properties ?? {})) if (/_[a-z]/.test(name)) snake.add(name)
      Object.values(node).forEach(walk)
    }
    for (const { status, response } of answers()) if (status.startsWith('2')) walk(response.content)
    expect([...snake]).toEqual([])
  })
})

describe('error answers', () => {
  test('every 4xx and 5xx body in the document is the one envelope', () => {
    const errors = answers().filter((a) => /^[45]/.test(a.status) && a.response.content)
    expect(errors.length).toBeGreaterThan(1000)
    for (const { where, response } of errors) {
      expect(response.content, where).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } })
      expect(response.description, where).toBeString()
    }
    const envelope = doc.components.schemas.Error!
    expect(envelope.required).toEqual(['statusCode', 'error', 'message'])
    expect(Object.keys(envelope.properties as object)).toEqual(expect.arrayContaining(['statusCode', 'error', 'message', 'details', 'code']))
    expect(Object.keys(doc.components.schemas.ValidationIssue!.properties as object).sort()).toEqual(ISSUE_KEYS)
    expect(JSON.stringify(doc.components.schemas.ErrorDetails)).toContain('#/components/schemas/ValidationIssue')
  })

  test('a schema failure and an endpoint check list details of one shape, on a sign-in route as on any other', async () => {
    const schema = await f.api.post('/v1/auth/register', { username: 'a', email: 'not-an-email', password: 1 }, { signedBy: tenant })
    expect(schema.status).toBe(400)
    expect(schema.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed' })
    const check = await f.api.post('/v1/auth/register', { username: unique('weak'), email: 'w@example.com', password: 'alllowercase1' }, { signedBy: tenant })
    expect(check.status).toBe(422)
    expect(check.body).toEqual({
      statusCode: 422, error: 'Validation Error', message: 'Request validation failed',
      details: [{ path: '/password', message: 'Password must contain an uppercase letter', instancePath: '/password', schemaPath: '', keyword: 'endpointCheck', params: {} }],
    })
    for (const issue of [...schema.body.details, ...check.body.details]) expect(Object.keys(issue).sort()).toEqual(ISSUE_KEYS)
    const missing = await f.api.post('/v1/auth/login', { username: 'alice' }, { signedBy: tenant })
    expect(missing.status).toBe(400)
    expect(missing.body.details).toContainEqual(expect.objectContaining({ path: '/password', keyword: 'required', params: { missingProperty: 'password' } }))
  })

  test('sign-in, password-reset and wallet-creation errors are the envelope too', async () => {
    const login = await f.api.post('/v1/auth/login', { username: 'nobody_here', password: 'Wrong-passw0rd' }, { signedBy: tenant })
    expect(login.status).toBe(401)
    expect(login.body).toEqual({ statusCode: 401, error: 'UnauthorizedError', message: 'Invalid credentials' })
    const reset = await t.handle(new Request('http://slipway.test/v1/auth/reset-password', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'x' }),
    }))
    const resetBody = await reset.json() as Record<string, unknown>
    expect(reset.status).toBe(400)
    expect(resetBody).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed' })
    const user = await f.user(tenant)
    const wallet = await f.api.post('/v1/wallets', { chain: 'dogecoin' }, { token: user.accessToken })
    expect(wallet.status).toBeGreaterThanOrEqual(400)
    expect(wallet.body).toMatchObject({ statusCode: wallet.status, error: expect.any(String), message: expect.any(String), detail: expect.any(String) })
  })
})
