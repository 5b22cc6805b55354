/**
 * The client from another project, as its author installs it: `npm run build:client -- --pack`
 * makes the `@slipway/client` tarball, a fresh project outside this repository installs it
 * (offline: its dependency is bundled), Node imports it and talks to a Slipway on 127.0.0.1,
 * and `tsc` types that project's calls from the package's declarations (a misspelt path fails).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN, makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { systemClock } from '@/lib/clock'

const ROOT = join(import.meta.dir, '..', '..')
const project = mkdtempSync(join(tmpdir(), 'slipway-client-user-'))
let t: TestApp
let server: HttpServer

const sh = (cmd: string[], cwd: string, env: Record<string, string> = {}) => {
  const r = Bun.spawnSync(cmd, { cwd, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

beforeAll(async () => {
  t = await makeApp({ clock: systemClock })
  server = serve(t)
})
afterAll(async () => {
  await server.stop()
  await t.close()
  rmSync(project, { recursive: true, force: true })
})

describe('@slipway/client in another project', () => {
  test('the packed tarball installs offline, Node imports it and signs, signs in and reads; tsc types its calls', async () => {
    const packed = sh([process.execPath, 'scripts/build-client.ts', '--pack', join(project, 'tarballs')], ROOT)
    expect(packed.code, packed.err).toBe(0)
    const tarball = packed.out.trim().split('\n').at(-1)!
    expect(tarball).toEndWith('.tgz')

    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'acme-backend', version: '1.0.0', private: true, type: 'module', dependencies: { '@slipway/client': `file:${tarball}` } }))
    const installed = sh(['npm', 'install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], project)
    expect(installed.code, installed.err).toBe(0)

    // Node, not Bun: the package is plain JavaScript
    writeFileSync(join(project, 'hello.mjs'), `
import { SlipwayClient, orThrow } from '@slipway/client'
const [baseUrl, username, password] = process.argv.slice(2)
const admin = new SlipwayClient({ baseUrl })
orThrow(await admin.adminLogin({ username, password }))
const tenant = orThrow(await admin.createTenant({ name: 'Acme from npm' }))
const slipway = new SlipwayClient({ baseUrl, tenant: { apiKey: tenant.apiKey, apiSecret: tenant.apiSecret } })
const made = orThrow(await slipway.register({ username: 'alice', email: 'alice@example.com', password: 'Str0ng-Passw0rd' }))
const me = orThrow(await slipway.getUser(made.user.id))
console.log(JSON.stringify({ tenant: tenant.name, user: me.username }))
try { orThrow(await slipway.getUser('00000000-0000-4000-8000-000000000000')) } catch (e) { console.log(e.name + ': ' + e.message) }
`)
    // the project's own tsc sees the package's types: a misspelt path is an error there
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM'] }, include: ['*.ts'] }))
    writeFileSync(join(project, 'typed.ts'), `
import { SlipwayClient } from '@slipway/client'
const slipway = new SlipwayClient({ baseUrl: 'http://localhost:3000' })
export async function walletsOf(id: string): Promise<string> {
  const { data } = await slipway.api.GET('/v1/users/{id}', { params: { path: { id } } })
  return data?.username ?? ''
}
// @ts-expect-error a misspelt path
void slipway.api.GET('/v1/userz/{id}', { params: { path: { id: 'x' } } })
`)
    // and without the expectation, the same line fails: one tsc run, whose only error is that line
    writeFileSync(join(project, 'typo.ts'), `import { SlipwayClient } from '@slipway/client'\nvoid new SlipwayClient({ baseUrl: '' }).api.GET('/v1/userz/{id}', { params: { path: { id: 'x' } } })\n`)
    // tsc and Node at once: the file's time is mostly its two tsc runs (the declarations in the build, about
    // 5 s of CPU here, and this one, about 3 s)
    const tsc = Bun.spawn([join(ROOT, 'node_modules/.bin/tsc'), '-p', '.'], { cwd: project, stdout: 'pipe', stderr: 'pipe' })
    // spawned, not spawnSync: the server answering it runs in this process
    const node = Bun.spawn(['node', 'hello.mjs', server.url, ADMIN.username, ADMIN.password], { cwd: project, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(node.stdout).text(), new Response(node.stderr).text(), node.exited])
    const ran = { code, out, err }
    expect(ran.code, ran.err).toBe(0)
    const [first, second] = ran.out.trim().split('\n')
    expect(JSON.parse(first!)).toEqual({ tenant: 'Acme from npm', user: 'alice' })
    expect(second).toStartWith('SlipwayError: GET /v1/users/00000000-0000-4000-8000-000000000000 answered 404')

    const [typedOut, typedCode] = await Promise.all([new Response(tsc.stdout).text(), tsc.exited])
    const typed = { code: typedCode, out: typedOut }
    expect(typed.code).not.toBe(0)
    expect(typed.out.split('\n').filter((l) => /error TS/.test(l)).map((l) => l.slice(0, l.indexOf(':')))).toEqual(['typo.ts(2,49)'])
  }, 120_000)
})
