/**
 * The OpenAPI document at /v1/docs/json (generated from the route schemas), the same
 * as YAML at /v1/docs/yaml, and the Scalar UI at /v1/docs with its script served by
 * the app itself, so the docs work offline and on air-gapped installs.
 */
import { Elysia } from 'elysia'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import type { Deps } from '../deps'
import { BODY_EXAMPLES } from './body-examples'
import { documentSuccess, oneErrorEnvelope, withErrorCodes, type DocOperation } from './openapi-responses'
import { prose } from './prose'

const SCALAR_PATH = '/v1/docs/assets/scalar.js'
const SPEC_PATH = '/v1/docs/json'
const SOURCE_PATH = '/v1/docs/source.json'

/**
 * The signing recipe's worked example on the docs page; tests/platform/signing-example.test.ts
 * recomputes it with the client and the server's own primitives, so it cannot drift.
 */
export const SIGNING_EXAMPLE = {
  apiSecret: 'sk_example-secret',
  method: 'POST',
  path: '/v1/auth/login',
  timestamp: '1767225600',
  body: '{"username":"alice","password":"Str0ng-Passw0rd"}',
  bodySha256: '8a671aa51dc20fc77fbedeb0905af216d9237f8c8824025fea9975496ef4b519',
  signature: 'c8fe6ff6f38f693b9b487e5f498c018256ab09927cf54b3ef5e3b5c5c733b2ff',
}

/** The document's introduction: one paragraph an element, each wrapped as prose. */
const DESCRIPTION = [
  'Slipway: sign-in, multi-chain wallets, transactions, swaps and a EUR bank ramp for your apps.',
  prose`
    **Credentials.** Routes marked *tenantSignature* need the three headers \`x-tenant-api-key\`,
    \`x-timestamp\` (Unix seconds) and \`x-signature\` = hex HMAC-SHA256 with the tenant API secret
    over \`METHOD\\nPATH?QUERY\\nTIMESTAMP\\nhex(SHA-256(raw body))\`. The timestamp must be within
    300 s of the server clock, and each signature is accepted once. Body validation runs before the
    signature check. Routes marked *bearerAuth* need \`Authorization: Bearer <access token>\`. The
    page's request tester cannot sign: use the client in \`src/client/\` of the repository, or the
    shell recipe in its docs/signing.md.`,
  [
    prose`
      **Signing, worked example.** With the secret \`${SIGNING_EXAMPLE.apiSecret}\`, a
      \`${SIGNING_EXAMPLE.method}\` of \`${SIGNING_EXAMPLE.path}\` at timestamp
      \`${SIGNING_EXAMPLE.timestamp}\` with the body \`${SIGNING_EXAMPLE.body}\` (exactly these
      bytes):`,
    `- SHA-256 of the body: \`${SIGNING_EXAMPLE.bodySha256}\``,
    prose`
      - string to sign (three newlines, no trailing one):
      \`${SIGNING_EXAMPLE.method}\\n${SIGNING_EXAMPLE.path}\\n${SIGNING_EXAMPLE.timestamp}\\n${SIGNING_EXAMPLE.bodySha256}\``,
    `- \`x-signature\`: \`${SIGNING_EXAMPLE.signature}\``,
  ].join('\n'),
  prose`
    A request without a body signs the SHA-256 of nothing (\`e3b0c442…b855\`). The path includes the
    query string exactly as sent.`,
  prose`
    **Errors.** Every 4xx and 5xx answers one envelope, \`{ statusCode, error, message, details?, code? }\`
    (\`Error\` in the schemas). Every validation failure, a schema's 400 (\`Request validation failed\`)
    and an endpoint check's 422, lists in \`details\` items of one shape, \`ValidationIssue\`:
    \`{ path, message, instancePath, schemaPath, keyword, params }\`, where \`path\` points at the field
    and \`keyword\` is \`endpointCheck\` for the endpoint's own checks. The spec gave sign-in,
    password-reset, user-creation and wallet-creation routes shapes of their own; they answer the
    envelope too, and user and wallet creation add \`detail\` (the message in one line) for the
    spec's clients. An unknown route answers 404 \`Route <METHOD>:<path> not found\`.`,
  prose`
    **Naming.** Every field is camelCase, one name per field: where the spec writes a wallet's
    creation time both \`createdAt\` and \`created_at\`, wallets answer \`createdAt\`.`,
  prose`
    **Rate limits** are per route and per client IP, counted in each API process's memory; limited
    routes send \`x-ratelimit-limit\`, \`x-ratelimit-remaining\`, \`x-ratelimit-reset\`, and
    \`retry-after\` on 429. \`X-Forwarded-For\` is believed only from proxies listed in
    \`TRUSTED_PROXIES\`.`,
  prose`
    **Busy and unavailable database**: any route that writes may answer 503 \`DATABASE_BUSY\` with
    \`retry-after\` (seconds) when the API process already has as many writes in flight as it
    allows (\`DATABASE_MAX_WRITES\`) and no place freed within \`DATABASE_WRITE_WAIT_MS\`: nothing was
    written, and the request can be sent again as it was. 503 \`DATABASE_UNAVAILABLE\` with
    \`retry-after\` when the database server cannot be reached or did not complete the write in time: a
    request that writes answers within \`DATABASE_TIMEOUT_MS\` of arriving (a write already sent may still be made).`,
  '**Amounts** of crypto are integer strings in the token\'s smallest unit; never floats.',
  prose`
    **Ids** that Slipway makes are UUIDs of version 7 (RFC 9562): the time in milliseconds, then 74
    random bits. They are unguessable, and they sort by creation time, but treat them as opaque
    strings: rows made by earlier releases keep their version 4 ids, and partners' ids keep their own form.`,
].join('\n\n')

/**
 * Options of @scalar/api-reference. The document is loaded from an absolute path (the
 * openapi plugin's own page passed `specPath` without its leading slash, which resolved
 * against /v1/docs to /v1/v1/docs/json). Everything that reaches a Scalar host is off, so
 * the page works offline: its fonts, the request proxy, telemetry, the AI agent, the
 * toolbar's share and deploy, and the button that opens Scalar's own client.
 */
export const SCALAR_OPTIONS = {
  url: SPEC_PATH,
  withDefaultFonts: false,
  proxyUrl: '',
  telemetry: false,
  agent: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: 'never',
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Slipway API</title>
<link rel="icon" href="data:,">
<style>body { margin: 0 }</style>
</head>
<body>
<script id="api-reference" data-configuration="${escapeHtml(JSON.stringify(SCALAR_OPTIONS))}"></script>
<script src="${SCALAR_PATH}"></script>
</body>
</html>
`

/** The docs UI script: as is, or gzip-compressed (the compiled binary embeds it compressed). */
export interface DocsScript {
  body: () => Blob | Uint8Array
  encoding?: 'gzip'
}

/** The OpenAPI version the document declares (that of @elysiajs/openapi's generator). */
const OPENAPI_VERSION = '3.1.2'

export function docsPlugin(deps: Deps, version: string, handle: (r: Request) => Promise<Response>, scalarScript: DocsScript) {
  let yamlCache: string | undefined
  let jsonCache: unknown
  const documentation = {
    info: { title: 'Slipway API', description: DESCRIPTION, version },
    servers: [{ url: deps.config.publicBaseUrl }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'User or operator access token' },
        adminBasic: { type: 'http', scheme: 'basic', description: 'A platform admin\'s username and password (operator pages a browser loads)' },
        tenantApiKey: { type: 'apiKey', in: 'header', name: 'x-tenant-api-key', description: 'Tenant API key' },
        tenantTimestamp: { type: 'apiKey', in: 'header', name: 'x-timestamp', description: 'Unix seconds; within 300 s of the server clock' },
        tenantSignature: { type: 'apiKey', in: 'header', name: 'x-signature', description: 'hex HMAC-SHA256 of the signing string with the tenant API secret' },
      },
    },
  }
  const plugin = new Elysia({ name: 'slipway-docs' })
  return plugin
    // The document as @elysiajs/openapi generates it from every route's schemas (what its
    // plugin serves at its spec path), finished by finishDocument at SPEC_PATH below. The
    // generator loads with the first request for the document, so a process nobody reads
    // the docs from does not hold it; the page at /v1/docs is ours (below).
    .get(SOURCE_PATH, async () => {
      const { toOpenAPISchema } = await import('@elysiajs/openapi')
      const { paths, components } = toOpenAPISchema(plugin, { paths: ['/v1/docs/yaml', SCALAR_PATH, SPEC_PATH] }, undefined, undefined, OPENAPI_VERSION)
      return {
        ...documentation,
        openapi: OPENAPI_VERSION,
        paths,
        components: { ...documentation.components, schemas: components.schemas },
      }
    }, { detail: { hide: true } })
    .get('/v1/docs', ({ set }) => {
      set.headers['content-type'] = 'text/html; charset=utf-8'
      return DOCS_PAGE
    }, { detail: { hide: true } })
    .get(SCALAR_PATH, async ({ request, set }) => {
      set.headers['content-type'] = 'application/javascript; charset=utf-8'
      set.headers['cache-control'] = 'public, max-age=86400'
      if (scalarScript.encoding !== 'gzip') return scalarScript.body()
      set.headers.vary = 'accept-encoding'
      if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
        set.headers['content-encoding'] = 'gzip'
        return scalarScript.body()
      }
      // A client that takes no gzip (rare for a browser) gets it decompressed, each time: nothing stays in memory.
      const body = scalarScript.body()
      return gunzipSync(body instanceof Blob ? new Uint8Array(await body.arrayBuffer()) : body)
    }, { detail: { hide: true } })
    .get(SPEC_PATH, async ({ request }) => {
      jsonCache ??= finishDocument(await (await handle(new Request(new URL(SOURCE_PATH, request.url)))).json())
      return jsonCache
    }, { detail: { hide: true } })
    .get('/v1/docs/yaml', async ({ request, set }) => {
      if (!yamlCache) {
        const res = await handle(new Request(new URL(SPEC_PATH, request.url)))
        // the YAML writer loads with the first YAML document asked for
        const { stringify } = await import('yaml')
        yamlCache = stringify(await res.json())
      }
      set.headers['content-type'] = 'application/yaml; charset=utf-8'
      return yamlCache
    }, { detail: { hide: true } })
}

type Operation = {
  operationId?: string
  summary?: string
  security?: unknown[]
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> }
  responses?: Record<string, { description?: string; content?: Record<string, unknown> }>
}

/**
 * What the plugin's document lacks: a body schema with no example of its own gets its
 * example from src/http/body-examples.ts;
 * a route with no credential scheme states `security: []` (public), so no reader has to guess;
 * 413 and 415 on every route with a body, 429 on every rate-limited one;
 * and artefacts of Elysia's schemas that are not OpenAPI go (`noValidate` in a response
 * schema, a `content` of `{ type: 'void' }` on 204 answers, integers-or-strings in answers).
 */
export function finishDocument<T extends { paths?: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } }>(doc: T): T {
  const resolve = (ref: string) => doc.components?.schemas?.[ref.replace('#/components/schemas/', '')] as Record<string, unknown> | undefined
  for (const ops of Object.values(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      op.security ??= []
      const schema = op.requestBody?.content?.['application/json']?.schema
      const example = BODY_EXAMPLES[op.operationId ?? '']
      // a route whose schema carries its own example keeps it
      if (schema && example !== undefined && !schema.examples) schema.examples = [example]
      // Every body is read by the core parser: too large (413) and not JSON (415) answer in the
      // one envelope, as its 500 entry (always present) does.
      const fallback = op.responses?.['500']
      // Any request that can carry a body is read with the limit, also where the route takes none.
      if (['post', 'put', 'patch', 'delete'].includes(method) && op.responses && fallback) {
        op.responses['413'] ??= { ...fallback, description: 'The body is larger than MAX_BODY_BYTES (the message names the limit)' } as never
      }
      if (op.requestBody && op.responses && fallback) {
        op.responses['415'] ??= { ...fallback, description: 'The body is not `application/json`' } as never
      }
      // A route with a rate limit (the `rateLimit` option writes `x-rate-limit`) can answer 429.
      if ((op as Record<string, unknown>)['x-rate-limit'] && op.responses && fallback) {
        op.responses['429'] ??= { ...fallback, description: 'Rate limit exceeded; see `retry-after`' } as never
      }
      for (const response of Object.values(op.responses ?? {})) {
        if (!response.content) continue
        for (const [type, media] of Object.entries(response.content)) {
          if (!type.includes('/')) delete response.content[type]
          else {
            const schema = (media as { schema?: Record<string, unknown> }).schema
            delete schema?.noValidate
            if (schema) (media as { schema?: unknown }).schema = integersAsSent(schema)
          }
        }
        if (Object.keys(response.content).length === 0) delete response.content
      }
      oneErrorEnvelope(op as DocOperation)
      documentSuccess(op as DocOperation, resolve)
    }
  }
  return withErrorCodes(doc, integersAsSent)
}

/**
 * Elysia documents `t.Integer` as "an integer, or a string holding one", true of what a
 * request may send (it coerces) but not of answers, which always carry numbers: in
 * responses the string branch goes, so generated clients type them as numbers.
 */
function integersAsSent(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(integersAsSent)
  if (!node || typeof node !== 'object') return node
  const obj = node as Record<string, unknown>
  const anyOf = obj.anyOf as Array<Record<string, unknown>> | undefined
  if (anyOf?.length === 2) {
    const str = anyOf.find((b) => b.type === 'string' && b.format === 'integer')
    const int = anyOf.find((b) => b.type === 'integer')
    if (str && int) {
      const { anyOf: _, ...rest } = obj
      return { ...rest, ...int }
    }
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, integersAsSent(v)]))
}

/** The Scalar script read from the repository (src/http/assets): for runs from source under any runtime. */
export function scalarFromSource(): DocsScript {
  const path = join(dirname(fileURLToPath(import.meta.url)), 'assets/scalar-standalone.js')
  return { body: () => readFileSync(path) }
}
