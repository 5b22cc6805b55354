/**
 * Code that a serving process needs only for some routes loads on first use: a process
 * that builds the app and serves /health and a sign-in holds no chain library (viem,
 * @solana/web3.js), no QR encoder, no YAML writer, no OpenAPI generator and no bull-board
 * (nor ejs under it), no Prometheus formatter (prom-client, with the first scrape) and no
 * JOSE library (jose, with the first Google or Apple ID token checked), no WebAuthn library (with
 * the first passkey ceremony); the argon2
 * addon loads with the first password hashed or checked (not with the bootstrap admin's hash,
 * which the runtime's own argon2 makes). Each loads
 * when the route that needs it runs. A local database never loads libSQL's client for a server. In a process of its own, because `bun test` shares
 * one module cache across files.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'

const GROUPS = {
  chain: 'viem|@solana\\/web3\\.js',
  argon2: '@node-rs\\/argon2',
  qrcode: 'qrcode',
  yaml: 'yaml',
  openapi: '@elysiajs\\/openapi',
  bullBoard: '@bull-board\\/api',
  ejs: 'ejs',
  // the Prometheus formatter: with the first scrape of /metrics
  promClient: 'prom-client',
  // ID tokens of Google and Apple: with the first social sign-in (tests/social run it)
  jose: 'jose',
  // the libSQL client for a server (HTTP and WebSocket protocol): never, on a local database
  libsqlRemote: '@libsql\\/hrana-client',
  // WebAuthn with its ASN.1 and X.509 stack: with the first passkey ceremony (tests/passkeys run them)
  webauthn: '@simplewebauthn\\/server|@peculiar\\/[^/]+|asn1js',
} as const
type Counts = Record<keyof typeof GROUPS, number>

const SCRIPT = `
import { ADMIN, makeApp } from '@tests/helpers/app'
import { ensureBootstrapAdmin } from '@/modules/auth/service'
const groups = ${JSON.stringify(GROUPS)}
const loaded = () => {
  const keys = Object.keys(require.cache)
  return Object.fromEntries(Object.entries(groups).map(([name, re]) => [name, keys.filter((k) => new RegExp('node_modules/(' + re + ')/').test(k)).length]))
}
const statuses = {}
const get = async (path, headers = {}) => { statuses[path] = (await t.handle(new Request('http://slipway.test' + path, { headers }))).status }
const t = await makeApp({ admin: false })
await get('/health')
const built = loaded()
await ensureBootstrapAdmin(t.deps, ADMIN.username, ADMIN.password)
const bootstrapped = loaded()
const login = await t.handle(new Request('http://slipway.test/v1/auth/admin/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) }))
statuses.login = login.status
const { accessToken, user } = await login.json()
const signedIn = loaded()
const bearer = { authorization: 'Bearer ' + accessToken }
await get('/v1/docs/json')
await get('/v1/docs/yaml')
await get('/admin/queues', { authorization: 'Basic ' + btoa(ADMIN.username + ':' + ADMIN.password) })
await get('/v1/users/' + user.id + '/qr-code', bearer)
await get('/v1/wallets/', bearer)
await get('/metrics', bearer)
console.log(JSON.stringify({ built, bootstrapped, signedIn, used: loaded(), statuses }))
await t.close()
`

test('route-specific modules are not loaded until a route that needs them runs', async () => {
  const root = join(import.meta.dir, '../..')
  const proc = Bun.spawn([process.execPath, '-e', SCRIPT], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const line = out.trim().split('\n').at(-1) ?? ''
  expect(line, err).toStartWith('{')
  const { built, bootstrapped, signedIn, used, statuses } = JSON.parse(line) as { built: Counts; bootstrapped: Counts; signedIn: Counts; used: Counts; statuses: Record<string, number> }
  const none = Object.fromEntries(Object.keys(GROUPS).map((k) => [k, 0]))
  // building the app and serving /health loads none of them
  expect(built).toEqual(none as Counts)
  // nor does the bootstrap admin's hash (the runtime's argon2, src/lib/passwords.ts hashPasswordOnce): a
  // fresh start holds no argon2 addon; the sign-in below verifies that hash with the addon
  expect(bootstrapped).toEqual(none as Counts)
  // a sign-in loads argon2 and nothing else of the list
  expect(signedIn).toEqual({ ...none, argon2: signedIn.argon2 } as Counts)
  expect(signedIn.argon2).toBeGreaterThan(0)
  // each route answered, and loaded what it needs
  expect(statuses).toEqual({ '/health': 200, login: 200, '/v1/docs/json': 200, '/v1/docs/yaml': 200, '/admin/queues': 200, [Object.keys(statuses).find((p) => p.endsWith('/qr-code'))!]: 200, '/v1/wallets/': 200, '/metrics': 200 })
  // the routes above sign in no one with Google or Apple, and use no database server
  const { libsqlRemote, jose, webauthn, ...routeModules } = used
  for (const [name, n] of Object.entries(routeModules)) expect([name, n > 0]).toEqual([name, true])
  expect(libsqlRemote).toBe(0)
  expect(jose).toBe(0)
  expect(webauthn).toBe(0)
}, 60_000)
