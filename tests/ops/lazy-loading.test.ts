/**
 * The chain libraries load on first use: a process that builds the app and serves sign-in
 * and users routes holds no viem or @solana/web3.js module, and the first wallet route loads
 * them. In a process of its own, because `bun test` shares one module cache across files.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'

const SCRIPT = `
import { makeApp } from '@tests/helpers/app'
const chainModules = () => Object.keys(require.cache).filter((k) => /node_modules\\/(viem|@solana\\/web3\\.js)\\//.test(k)).length
const t = await makeApp()
const before = chainModules()
await t.handle(new Request('http://slipway.test/health'))
await t.handle(new Request('http://slipway.test/v1/docs/json'))
const afterRoutes = chainModules()
const login = await t.handle(new Request('http://slipway.test/v1/auth/admin/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: 'Root-Passw0rd' }) }))
const token = (await login.json()).accessToken
await t.handle(new Request('http://slipway.test/v1/wallets/', { headers: { authorization: 'Bearer ' + token } }))
console.log(JSON.stringify({ before, afterRoutes, afterWallets: chainModules() }))
await t.close()
`

test('viem and @solana/web3.js are not loaded until a wallet route runs', async () => {
  const root = join(import.meta.dir, '../..')
  const proc = Bun.spawn([process.execPath, '-e', SCRIPT], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const line = out.trim().split('\n').at(-1) ?? ''
  expect(line, err).toStartWith('{')
  const counts = JSON.parse(line) as { before: number; afterRoutes: number; afterWallets: number }
  expect(counts.before).toBe(0)
  expect(counts.afterRoutes).toBe(0)
  expect(counts.afterWallets).toBeGreaterThan(0)
}, 60_000)
