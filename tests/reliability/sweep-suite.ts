/**
 * The bad-input sweep: every operation of the OpenAPI document is called with generated
 * inputs (fast-check) for its path, query and body, under each kind of credential, and
 * must answer without a 5xx (502 and 503 only where the route documents an unreachable
 * dependency), within 5 seconds, with an error body in the envelope the route documents
 * for that status. Routes are read from the document, so a route added later is swept
 * without writing anything here. `SWEEP_RUNS` sets the cases per operation (30 in CI);
 * `SWEEP_SEED` replays a run.
 *
 * The operations are swept in two files, sweep-1.test.ts and sweep-2.test.ts, each with its own
 * app and half of the operations (every other one in the document's order), so `npm test` runs
 * the halves at once: the sweep alone took 30 s at load 14 and 72 s at load 15-45.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import { RateLimiter } from '@/http/rate-limit'
import { CHAINS } from '@/adapters/chain/registry'
import { ADMIN, makeApp, type TestApp } from '@tests/helpers/app'
import { signedHeaders } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

const RUNS = Number(process.env.SWEEP_RUNS ?? 30)
const SEED = process.env.SWEEP_SEED ? Number(process.env.SWEEP_SEED) : Date.now() % 2 ** 31
const HANG_MS = 5_000
/** A port where nothing listens: every external system is unreachable, fast. */
const NOWHERE = 'http://127.0.0.1:9'

type Schema = Record<string, any>
interface Operation {
  method: string
  path: string
  id: string
  params: Array<{ in: string; name: string; schema?: Schema; required?: boolean }>
  body?: Schema
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>
  /** bearer, tenant signature, or neither (read from `security`) */
  security: 'bearer' | 'signed' | 'both' | 'none'
}

let t: TestApp
let f: Factory
let ops: Operation[]
let doc: Schema
const ajv = addFormats(new Ajv({ strict: false, allErrors: false, validateFormats: true }))
// TypeBox writes `format: integer` beside `type: integer` on some numbers; it adds nothing to check.
ajv.addFormat('integer', true)
const world = {} as {
  admin: string
  tenant: Tenant
  other: Tenant
  operator: SignedInUser
  user: SignedInUser
  otherUser: SignedInUser
  walletId: string
}

async function setUp() {
  const rpcEnv = Object.fromEntries(CHAINS.flatMap((c) => [c.mainnet.id, c.testnet.id]).map((id) => [`RPC_URL_${id.toUpperCase().replace(/-/g, '_')}`, NOWHERE]))
  t = await makeApp({
    env: {
      ...rpcEnv,
      RPC_TIMEOUT_MS: '1500',
      HIBP_BASE_URL: NOWHERE,
      HIBP_TIMEOUT_MS: '1500',
      GOOGLE_JWKS_URL: `${NOWHERE}/google`,
      APPLE_JWKS_URL: `${NOWHERE}/apple`,
      WEBHOOK_DEV_ROUTES: 'hooks.slipway.test=http://127.0.0.1:9',
    },
  })
  f = new Factory(t)
  world.admin = await f.adminToken()
  world.tenant = await f.tenant({ bankRamp: { sandbox: { connected: true } }, passwordReset: { enabled: true } })
  world.other = await f.tenant()
  world.operator = await f.tenantAdmin(world.tenant)
  world.user = await f.user(world.tenant)
  world.otherUser = await f.user(world.other)
  const wallet = await f.api.post('/v1/wallets/', { chain: 'ethereum' }, { token: world.user.accessToken })
  expect(wallet.status).toBe(201)
  world.walletId = wallet.body.id
  doc = (await f.api.get('/v1/docs/json')).body
  ops = operations(doc)
}

function deref(s: Schema | undefined): Schema | undefined {
  if (!s?.$ref) return s
  return s.$ref.split('/').slice(1).reduce((o: Schema, k: string) => o?.[k], doc) as Schema
}

function operations(d: Schema): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries<Schema>(d.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const sec = (op.security ?? d.security ?? []) as Array<Record<string, unknown>>
      const names = sec.flatMap((s) => Object.keys(s))
      out.push({
        method: method.toUpperCase(),
        path,
        id: op.operationId ?? `${method} ${path}`,
        params: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
        responses: op.responses ?? {},
        // one requirement naming both schemes: the lending routes take the signature and the token
        security: sec.some((s) => 'bearerAuth' in s && 'tenantSignature' in s) ? 'both' : names.includes('bearerAuth') ? 'bearer' : names.includes('tenantSignature') ? 'signed' : 'none',
      })
    }
  }
  return out
}

// ---- generated inputs -------------------------------------------------------------

const nasty = fc.constantFrom(
  '', ' ', '0', '-1', '1e19', '18446744073709551616', '9'.repeat(40), 'NaN', 'Infinity', 'null', 'true', '[]', '{}',
  '../../etc/passwd', '%00', '\u0000', 'ǅ̸̢͓', '😀'.repeat(50), 'x'.repeat(5000), "' OR 1=1 --", '<script>', '00000000-0000-0000-0000-000000000000',
)
const anyString = fc.oneof(fc.string({ maxLength: 40 }), nasty, fc.uuid())
const anyNumber = fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1e19, 2 ** 63, -(2 ** 63), 1.5, Number.MAX_SAFE_INTEGER + 2, 1e308))
const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, anyString, anyNumber, fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('v'), { maxKeys: 3 })),
})).v

/** A value near the schema: often valid, often one field off (wrong type, out of range, missing, extra). */
function near(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(schema) ?? {}
  const wild = depth > 3 ? anyJson : fc.oneof(anyString, anyNumber, fc.constant(null), fc.boolean())
  const alts = s.anyOf ?? s.oneOf
  if (alts) return fc.oneof(...alts.map((a: Schema) => near(a, depth + 1)), wild)
  if (s.const !== undefined) return fc.oneof({ weight: 4, arbitrary: fc.constant(s.const) }, { weight: 1, arbitrary: wild })
  if (s.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: wild })
  switch (s.type) {
    case 'string': {
      const valid = s.format === 'email' ? fc.emailAddress() : s.format === 'uuid' ? fc.uuid() : s.format === 'uri' ? fc.webUrl() : fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) })
      return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: wild })
    }
    case 'integer':
    case 'number':
      return fc.oneof({ weight: 2, arbitrary: fc.integer({ min: s.minimum ?? -10, max: Math.min(s.maximum ?? 1000, 1e9) }) }, { weight: 2, arbitrary: anyNumber }, { weight: 1, arbitrary: wild })
    case 'boolean':
      return fc.oneof(fc.boolean(), wild)
    case 'array':
      return fc.oneof({ weight: 3, arbitrary: fc.array(near(s.items, depth + 1), { maxLength: 4 }) }, { weight: 1, arbitrary: wild })
    case 'object':
    case undefined: {
      const props = Object.entries<Schema>(s.properties ?? {})
      if (!props.length) return depth > 3 ? anyJson : fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 }), wild)
      const record = fc.record(Object.fromEntries(props.map(([k, v]) => [k, near(v, depth + 1)])), { requiredKeys: [] })
      const extra = fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 2 })
      return fc.oneof({ weight: 4, arbitrary: fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r })) }, { weight: 1, arbitrary: wild })
    }
    default:
      return wild
  }
}

/** What goes on the wire as the body: JSON near the schema, other JSON, broken JSON, bad UTF-8, other content types. */
function bodyArb(op: Operation): fc.Arbitrary<{ bytes: Uint8Array | null; contentType: string | null }> {
  const json = (v: unknown) => ({ bytes: new TextEncoder().encode(JSON.stringify(v)), contentType: 'application/json' })
  const text = (s: string, contentType: string | null) => ({ bytes: new TextEncoder().encode(s), contentType })
  const options: Array<fc.WeightedArbitrary<{ bytes: Uint8Array | null; contentType: string | null }>> = [
    { weight: 6, arbitrary: near(op.body).map(json) },
    { weight: 1, arbitrary: anyJson.map(json) },
    { weight: 1, arbitrary: fc.constantFrom('{"a":', '{', 'hello', '"hello"', '[1,2', '{"a":1}}', 'null').map((s) => text(s, 'application/json')) },
    { weight: 1, arbitrary: fc.constant({ bytes: Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), contentType: 'application/json' }) },
    { weight: 1, arbitrary: fc.constantFrom(['a=1&b=2', 'application/x-www-form-urlencoded'], ['<a>1</a>', 'application/xml'], ['hello', 'text/plain'], ['--x\r\n\r\n--x--', 'multipart/form-data; boundary=x']).map(([b, c]) => text(b!, c!)) },
    { weight: 1, arbitrary: fc.constant({ bytes: null, contentType: null }) },
    // over MAX_BODY_BYTES (1 MiB)
    { weight: 1, arbitrary: fc.constant(json({ blob: 'x'.repeat(1_100_000) })) },
  ]
  return fc.oneof(...options)
}

type Credential = 'none' | 'garbage' | 'admin' | 'operator' | 'user' | 'otherUser' | 'signed' | 'signedOther' | 'signedUser'

function pathValue(op: Operation, name: string, schema: Schema | undefined): fc.Arbitrary<string> {
  const own = [world.tenant.id, world.user.id, world.walletId, world.other.id, world.otherUser.id]
  const kind = name === 'environment' ? fc.constantFrom('sandbox', 'production') : name === 'chain' ? fc.constantFrom('ethereum', 'sepolia', 'solana') : fc.constantFrom(...own)
  // a path segment is never empty, `.` or `..`: those would name another route
  return fc.oneof({ weight: 3, arbitrary: kind }, { weight: 2, arbitrary: near(schema).map(String) }, { weight: 1, arbitrary: nasty }).filter((v) => v !== '' && v !== '.' && v !== '..')
}

function requestArb(op: Operation) {
  const path = fc.record(Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, pathValue(op, p.name, p.schema)])))
  const query = fc.record(
    Object.fromEntries(op.params.filter((p) => p.in === 'query').map((p) => [p.name, fc.oneof(near(p.schema).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))), nasty)])),
    { requiredKeys: [] },
  )
  const natural: Credential[] = op.security === 'bearer' ? ['admin', 'operator', 'user'] : op.security === 'signed' ? ['signed'] : op.security === 'both' ? ['signedUser'] : ['none']
  const credential = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...natural) }, { weight: 1, arbitrary: fc.constantFrom<Credential>('none', 'garbage', 'admin', 'operator', 'user', 'otherUser', 'signed', 'signedOther', 'signedUser') })
  const body = ['GET', 'DELETE'].includes(op.method) ? fc.constant({ bytes: null, contentType: null }) : bodyArb(op)
  return fc.record({ path, query, credential, body })
}

interface SweepInput { path: Record<string, string>; query: Record<string, string | undefined>; credential: Credential; body: { bytes: Uint8Array | null; contentType: string | null } }

function toRequest(op: Operation, input: SweepInput) {
  let path = op.path
  for (const [k, v] of Object.entries<string>(input.path)) path = path.replace(`{${k}}`, encodeURIComponent(v))
  const qs = new URLSearchParams(input.query as Record<string, string>).toString()
  const pathWithQuery = qs ? `${path}?${qs}` : path
  const headers: Record<string, string> = {}
  if (input.body.contentType) headers['content-type'] = input.body.contentType
  const cred = input.credential
  const bearer: Partial<Record<Credential, string>> = { admin: world.admin, operator: world.operator.accessToken, user: world.user.accessToken, otherUser: world.otherUser.accessToken, garbage: 'not.a.token', signedUser: world.user.accessToken }
  if (bearer[cred]) headers.authorization = `Bearer ${bearer[cred]}`
  if (cred === 'signed' || cred === 'signedOther' || cred === 'signedUser') {
    const bodyText = input.body.bytes ? Buffer.from(input.body.bytes).toString('latin1') : ''
    // signed over the exact bytes: hash them as sent
    const ts = String(Math.floor(t.clock.now() / 1000))
    Object.assign(headers, signedHeaders(cred === 'signedOther' ? world.other : world.tenant, op.method, pathWithQuery, bodyText, ts))
    if (input.body.bytes) headers['x-signature'] = signBytes(cred === 'signedOther' ? world.other : world.tenant, op.method, pathWithQuery, input.body.bytes, ts)
  }
  return { request: new Request(`http://slipway.test${pathWithQuery}`, { method: op.method, headers, body: (input.body.bytes ?? undefined) as BodyInit | undefined }), pathWithQuery, headers }
}

function signBytes(creds: Tenant, method: string, pathWithQuery: string, bytes: Uint8Array, ts: string) {
  const { createHash, createHmac } = require('node:crypto') as typeof import('node:crypto')
  const bodyHash = createHash('sha256').update(bytes).digest('hex')
  return createHmac('sha256', creds.apiSecret).update(`${method}\n${pathWithQuery}\n${ts}\n${bodyHash}`).digest('hex')
}

/** The schema the route documents for a status, if any. */
function documented(op: Operation, status: number): Schema | null | undefined {
  const r = op.responses[String(status)]
  if (!r) return undefined
  const content = r.content?.['application/json'] ?? Object.values(r.content ?? {})[0]
  return content?.schema ? deref(content.schema)! : null
}

const validators = new Map<Schema, ReturnType<typeof ajv.compile>>()
function validate(schema: Schema, value: unknown): string | null {
  let v = validators.get(schema)
  if (!v) validators.set(schema, (v = ajv.compile({ ...schema, components: doc.components } as Schema)))
  return v(value) ? null : ajv.errorsText(v.errors)
}

/** Registers part `part` (from 0) of `parts`: its own app, every `parts`-th operation; the document-wide checks in part 0. */
export function sweepPart(part: number, parts: number) {
  beforeAll(setUp, 30_000)
  afterAll(() => t.close())
  describe(`bad-input sweep, part ${part + 1} of ${parts} (${RUNS} cases per operation, seed ${SEED})`, () => {
    if (part === 0) documentChecks()
    operationSweep(part, parts)
  })
}

function documentChecks() {
  test('the document has operations to sweep', () => {
    expect(ops.length).toBeGreaterThan(40)
  })

  test('every number a client sends is bounded (parameters and request bodies)', () => {
    const unbounded: string[] = []
    const walk = (s: Schema | undefined, at: string) => {
      const node = deref(s)
      if (!node) return
      if ((node.type === 'integer' || node.type === 'number') && ((node.maximum ?? node.exclusiveMaximum) === undefined || (node.minimum ?? node.exclusiveMinimum) === undefined)) unbounded.push(at)
      for (const [k, v] of Object.entries<Schema>(node.properties ?? {})) walk(v, `${at}.${k}`)
      for (const alt of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) walk(alt, at)
      if (node.items) walk(node.items, `${at}[]`)
    }
    for (const op of ops) {
      for (const p of op.params) walk(p.schema, `${op.id} ${p.in} ${p.name}`)
      walk(op.body, `${op.id} body`)
    }
    expect(unbounded).toEqual([])
  })
}

function operationSweep(part: number, parts: number) {
  test('no operation answers 5xx, hangs, or answers an error outside its documented envelope', async () => {
    const failures: string[] = []
    const mine = ops.filter((_, i) => i % parts === part)
    expect(mine.length).toBeGreaterThan(20)
    for (const op of mine) {
      if (op.path.startsWith('/admin/queues')) continue // bull-board's own UI, swept by its own tests
      t.deps.rateLimiter = new RateLimiter(t.clock)
      const outcome = await fc.check(
        fc.asyncProperty(requestArb(op), async (input: SweepInput) => {
          const { request, pathWithQuery, headers } = toRequest(op, input)
          const shown = `${op.method} ${pathWithQuery} ${JSON.stringify(headers)} body=${input.body.bytes ? JSON.stringify(Buffer.from(input.body.bytes).toString('latin1').slice(0, 300)) : 'none'}`
          let timer: Timer | undefined
          const res = await Promise.race([
            t.handle(request),
            new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer in ${HANG_MS} ms: ${shown}`)), HANG_MS) }),
          ]).finally(() => clearTimeout(timer))
          const text = await res.text()
          const dependency = (res.status === 502 || res.status === 503) && documented(op, res.status) !== undefined
          if (res.status >= 500 && !dependency) throw new Error(`${res.status} ${text.slice(0, 300)} for ${shown}`)
          if (res.status < 400) return
          const schema = documented(op, res.status)
          if (schema === undefined) throw new Error(`status ${res.status} is not documented for ${op.id} (${text.slice(0, 200)}) for ${shown}`)
          if (schema === null) return
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            throw new Error(`${res.status} answered a body that is not JSON (${text.slice(0, 100)}) for ${shown}`)
          }
          const problem = validate(schema, body)
          if (problem) throw new Error(`${res.status} body ${text.slice(0, 300)} is not the documented envelope (${problem}) for ${shown}`)
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      if (outcome.failed) failures.push(`${op.id}: ${String((outcome.errorInstance as Error | undefined)?.message ?? outcome.errorInstance)}`)
      const health = await t.handle(new Request('http://slipway.test/health'))
      if (health.status !== 200) failures.push(`/health answered ${health.status} after ${op.id}`)
    }
    expect(failures).toEqual([])
  }, 600_000)
}

// Keep the admin's credentials in view: the sweep must not lock the bootstrap admin out.
void ADMIN
