/**
 * The OpenAPI document at /v1/docs/json (generated from the route schemas), the same
 * as YAML at /v1/docs/yaml, and the Scalar UI at /v1/docs with its script served by
 * the app itself, so the docs work offline and on air-gapped installs.
 */
import { Elysia } from 'elysia'
import { openapi } from '@elysiajs/openapi'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { stringify } from 'yaml'
import type { Deps } from '../deps'

const SCALAR_PATH = '/v1/docs/assets/scalar.js'

const DESCRIPTION = `Slipway: sign-in, multi-chain wallets, transactions, swaps and a EUR bank ramp for your apps.

**Credentials.** Routes marked *tenantSignature* need the three headers \`x-tenant-api-key\`, \`x-timestamp\` (Unix seconds) and \`x-signature\` = hex HMAC-SHA256 with the tenant API secret over \`METHOD\\nPATH?QUERY\\nTIMESTAMP\\nhex(SHA-256(raw body))\`. The timestamp must be within 300 s of the server clock, and each signature is accepted once. Body validation runs before the signature check. Routes marked *bearerAuth* need \`Authorization: Bearer <access token>\`.

**Errors** use the envelope \`{ statusCode, error, message, details?, code? }\`, except where a route declares otherwise: sign-in routes answer \`{ error, message }\`, password-reset routes \`{ error }\`, and user and wallet creation \`{ detail }\`. An unknown route answers 404 \`Route <METHOD>:<path> not found\`.

**Rate limits** are per route and per client IP, counted in each API process's memory; limited routes send \`x-ratelimit-limit\`, \`x-ratelimit-remaining\`, \`x-ratelimit-reset\`, and \`retry-after\` on 429. \`X-Forwarded-For\` is believed only from proxies listed in \`TRUSTED_PROXIES\`.

**Amounts** of crypto are integer strings in the token's smallest unit; never floats.`

/** The docs UI script: as is, or gzip-compressed (the compiled binary embeds it compressed). */
export interface DocsScript {
  body: () => Blob | Uint8Array
  encoding?: 'gzip'
}

export function docsPlugin(deps: Deps, version: string, handle: (r: Request) => Promise<Response>, scalarScript: DocsScript) {
  let yamlCache: string | undefined
  return new Elysia({ name: 'slipway-docs' })
    .use(openapi({
      path: '/v1/docs',
      specPath: '/v1/docs/json',
      exclude: { paths: ['/v1/docs/yaml', SCALAR_PATH] },
      scalar: { cdn: SCALAR_PATH } as never,
      documentation: {
        info: { title: 'Slipway API', version, description: DESCRIPTION },
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
      },
    }))
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
    .get('/v1/docs/yaml', async ({ request, set }) => {
      if (!yamlCache) {
        const res = await handle(new Request(new URL('/v1/docs/json', request.url)))
        yamlCache = stringify(await res.json())
      }
      set.headers['content-type'] = 'application/yaml; charset=utf-8'
      return yamlCache
    }, { detail: { hide: true } })
}

/** The Scalar script read from node_modules: for runs from source under any runtime. */
export function scalarFromNodeModules(): DocsScript {
  const path = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/@scalar/api-reference/dist/browser/standalone.js')
  return { body: () => readFileSync(path) }
}
