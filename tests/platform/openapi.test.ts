/**
 * The OpenAPI document as a client generator sees it: every request body has its JSON
 * schema and an example that passes the route's own schema; every operation states its
 * security; `redocly lint` (recommended rules, redocly.yaml) passes; and the committed
 * client types (src/client/api-types.ts, openapi-typescript) match the document, with a
 * typed body for every operation that takes one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import type { TSchema } from '@sinclair/typebox'
import type { operations } from '@/client/api-types'
import { BODY_EXAMPLES } from '@/http/body-examples'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { CLIENT_TYPES_PATH, clientTypes } from '../../scripts/client-types'

type Operation = {
  operationId: string
  security?: unknown
  requestBody?: { content: Record<string, { schema?: { examples?: unknown[] } }> }
}
/** Bodies documented without a type on purpose: anything they hold is accepted or ignored. */
const UNTYPED_BODIES: Record<string, string> = {
  rampPayinCheckout: 'not read: card top-up is switched off',
  rampPartnerWebhook: 'the bank partner\'s own event format, checked by its signature',
  cardOnrampProviderWebhook: 'the card provider\'s own event format (Stripe\'s), checked by its signature',
}

let t: TestApp
let doc: { paths: Record<string, Record<string, Operation>> }
const ops = () => Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })))

beforeAll(async () => {
  t = await makeApp()
  doc = await (await t.handle(new Request('http://slipway.test/v1/docs/json'))).json() as typeof doc
})
afterAll(() => t.close())

describe('request bodies in the OpenAPI document', () => {
  test('every operation with a body has its JSON schema and an example', () => {
    const withBody = ops().filter(({ op }) => op.requestBody)
    expect(withBody.length).toBeGreaterThanOrEqual(29)
    for (const { where, op } of withBody) {
      expect(Object.keys(op.requestBody!.content), where).toEqual(['application/json'])
      const schema = op.requestBody!.content['application/json']!.schema as Record<string, unknown> | undefined
      expect(schema, `${where} has a schema`).toBeObject()
      if (!UNTYPED_BODIES[op.operationId]) expect(schema!.type === 'object' || schema!.anyOf || schema!.$ref, `${where} has a typed schema`).toBeTruthy()
      expect(schema!.examples, `${where} has an example`).toBeArrayOfSize(1)
    }
  })

  test('every route that takes a body is in the document with one, and its example passes the route\'s own schema', () => {
    const routes = t.app.routes as Array<{ method: string; path: string; hooks?: { body?: TSchema; detail?: { operationId?: string; hide?: boolean } } }>
    const bodyRoutes = routes.filter((r) => r.hooks?.body && !r.hooks.detail?.hide)
    expect(bodyRoutes.length).toBe(ops().filter(({ op }) => op.requestBody).length)
    for (const r of bodyRoutes) {
      const id = r.hooks!.detail?.operationId ?? ''
      const own = (r.hooks!.body as { examples?: unknown[] }).examples
      // an example in the route's own schema, or else one in src/http/body-examples.ts
      expect(!!own?.length || id in BODY_EXAMPLES, `${r.method} ${r.path} (${id}) has an example`).toBe(true)
      expect(!!own?.length && id in BODY_EXAMPLES, `${id}: one example source only`).toBe(false)
      for (const example of own ?? [BODY_EXAMPLES[id]]) {
        const errors = [...Value.Errors(r.hooks!.body!, example)].map((e) => `${e.path} ${e.message}`)
        expect(errors, `${id}'s example`).toEqual([])
      }
    }
    const used = new Set(bodyRoutes.map((r) => r.hooks!.detail?.operationId))
    expect(Object.keys(BODY_EXAMPLES).filter((id) => !used.has(id))).toEqual([])
  })

  test('every operation states its security: a scheme, or [] when public', () => {
    for (const { where, op } of ops()) expect(Array.isArray(op.security), where).toBe(true)
    expect(doc.paths['/health']!.get!.security).toEqual([])
    expect(doc.paths['/v1/auth/register']!.post!.security).toEqual([{ tenantApiKey: [], tenantTimestamp: [], tenantSignature: [] }])
  })
})

describe('tools', () => {
  let dir: string
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'slipway-openapi-')) })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('redocly lint passes with the recommended rules', () => {
    const file = join(dir, 'openapi.json')
    writeFileSync(file, JSON.stringify(doc))
    const run = Bun.spawnSync(['node_modules/.bin/redocly', 'lint', file, '--config', 'redocly.yaml', '--format', 'stylish'], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } })
    const out = `${run.stdout.toString()}${run.stderr.toString()}`
    expect(out).toContain('Your API description is valid')
    expect(out).not.toMatch(/\b(error|warning)\s{2,}/)
    expect(run.exitCode).toBe(0)
  }, 60_000)

  test('the committed client types are what openapi-typescript makes of the document (npm run client:types)', async () => {
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8') === await clientTypes(doc), 'src/client/api-types.ts is out of date: run npm run client:types').toBe(true)
  }, 30_000) // the whole document, an example per answer: about 4 s on this 2-core machine, more when it is busy
})

// Type-level: `npm run typecheck` fails when any generated request body is `never`,
// `unknown`, or not JSON (as when the plugin saw no body schema and wrote `content: {}`);
// UNTYPED_BODIES are `unknown` on purpose.
type BodyProblem<O> = O extends { requestBody: infer R }
  ? [R] extends [never] ? never
  : R extends { content: { 'application/json': infer B } } ? ([B] extends [never] ? 'never' : unknown extends B ? 'unknown' : never) : 'not JSON'
  : never
type Problems = { [K in Exclude<keyof operations, 'rampPayinCheckout' | 'rampPartnerWebhook' | 'cardOnrampProviderWebhook'> as BodyProblem<operations[K]> extends never ? never : K]: BodyProblem<operations[K]> }
const everyBodyTyped: keyof Problems extends never ? true : Problems = true
void everyBodyTyped
