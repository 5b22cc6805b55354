import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chainRoutesSuite, coreHttpSuite } from '@tests/helpers/core-http-suite'
import { Api } from '@tests/helpers/client'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'
import { tenantWithHook } from '@tests/webhooks/process-app'
import { environOf, freePort, PROCESS_ADMIN, startProcess } from '@tests/helpers/process'
import { ENGINE_RAM_DEFAULT_MIB } from '@/lib/engine-memory'
import { checkProject } from '@/ops/licences/gate'
import { formatReport, licenceReport } from '@/ops/licences/report'
import packageJson from '../../package.json'

// `npm run build` output, copied alone into an empty folder: no node_modules, no drizzle/, no sources.
const buildDir = mkdtempSync(join(tmpdir(), 'slipway-build-'))
const runDir = mkdtempSync(join(tmpdir(), 'slipway-bin-'))
const binary = join(runDir, 'slipway')

beforeAll(async () => {
  const build = Bun.spawn([process.execPath, 'scripts/build.ts', join(buildDir, 'slipway')], { stdout: 'inherit', stderr: 'inherit' })
  expect(await build.exited).toBe(0)
  await Bun.write(binary, Bun.file(join(buildDir, 'slipway')))
  Bun.spawnSync(['chmod', '+x', binary])
  expect(readdirSync(runDir)).toEqual(['slipway'])
}, 120_000)
afterAll(() => {
  for (const d of [buildDir, runDir]) rmSync(d, { recursive: true, force: true })
})

describe('standalone binary', () => {
  test('starts from an empty folder and answers /health quickly', async () => {
    const started = performance.now()
    const p = await startProcess([binary], { cwd: runDir, dir: join(runDir, 'data') })
    const ms = performance.now() - started
    try {
      // the docs UI script is embedded gzip-compressed: sent as is to clients that take gzip, decompressed for others
      const original = await Bun.file('src/http/assets/scalar-standalone.js').text()
      const raw = await fetch(`${p.url}/v1/docs/assets/scalar.js`, { headers: { 'accept-encoding': 'gzip' }, decompress: false })
      expect(raw.status).toBe(200)
      expect(raw.headers.get('content-encoding')).toBe('gzip')
      const compressed = new Uint8Array(await raw.arrayBuffer())
      expect(compressed.length).toBeLessThan(original.length / 2)
      expect(new TextDecoder().decode(Bun.gunzipSync(compressed))).toBe(original)
      const plain = await fetch(`${p.url}/v1/docs/assets/scalar.js`, { headers: { 'accept-encoding': 'identity' }, decompress: false })
      expect(plain.headers.get('content-encoding')).toBeNull()
      expect(await plain.text()).toBe(original)
      // by default the engine paces itself by the machine's RAM: no restart (src/lib/engine-memory.ts)
      expect(ENGINE_RAM_DEFAULT_MIB).toBe(0)
      expect(environOf(p.proc.pid).BUN_JSC_forceRAMSize).toBeUndefined()
      // reported, not asserted as a timing: see scripts/bench for the measured figure
      console.log(`binary: first /health answer ${ms.toFixed(0)} ms after spawn`)
    } finally {
      await p.stop()
    }
  })

  test('with ENGINE_RAM_MIB set, the binary restarts itself with the engine told that figure, its arguments intact', async () => {
    const p = await startProcess([binary], { cwd: runDir, env: { ENGINE_RAM_MIB: '192' } })
    try {
      expect(environOf(p.proc.pid).BUN_JSC_forceRAMSize).toBe(String(192 * 1024 * 1024))
      expect((await fetch(`${p.url}/health`)).status).toBe(200)
    } finally {
      await p.stop()
    }
  })
})

describe('code the binary loads on first use', () => {
  // A module that `bun build --compile` failed to embed shows only here, as a 500 on the route that loads it.
  test('sign-in (argon2), the QR code, the YAML document and the queue dashboard answer', async () => {
    const p = await startProcess([binary], { cwd: runDir })
    try {
      const api = new Api(p.url)
      const login = await api.post('/v1/auth/admin/login', PROCESS_ADMIN)
      expect(login.status).toBe(200)
      const qr = await api.get(`/v1/users/${login.body.user.id}/qr-code`, { token: login.body.accessToken })
      expect(qr.status).toBe(200)
      expect(qr.body.qrCode).toStartWith('data:image/png;base64,')
      const yaml = await api.get('/v1/docs/yaml')
      expect(yaml.status).toBe(200)
      expect(yaml.text).toContain('openapi: 3.1.2')
      // bull-board finds no UI files in the binary: the board's path sends admins to the delivery summary
      const basic = { authorization: `Basic ${btoa(`${PROCESS_ADMIN.username}:${PROCESS_ADMIN.password}`)}` }
      const board = await fetch(`${p.url}/admin/queues`, { headers: basic, redirect: 'manual' })
      expect(board.status).toBe(302)
      expect(board.headers.get('location')).toBe('/admin/webhook-deliveries')
      expect((await fetch(`${p.url}/admin/queues/api/queues`, { headers: basic })).status).toBe(404)
      expect((await fetch(`${p.url}/admin/webhook-deliveries`, { headers: basic })).status).toBe(200)
    } finally {
      await p.stop()
    }
  })
})

describe('the job queue in the binary', () => {
  // bunqueue is a chunk of its own, loaded with the first due job (src/jobs/runner.ts).
  test('a webhook test delivery runs through the queue and reaches the receiver', async () => {
    const receiver = new WebhookReceiver()
    receiver.start()
    const p = await startProcess([binary], { cwd: runDir, dir: join(runDir, 'queue-data'), env: { NODE_ENV: 'test', WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}` } })
    try {
      const { sendTest } = await tenantWithHook(p.url, 'queue', '/in')
      // an idle process has not opened the queue: no queue file yet
      expect(await Bun.file(join(runDir, 'queue-data', 'queue.sqlite')).exists()).toBe(false)
      await sendTest()
      await receiver.waitFor(1, 10_000)
      expect(JSON.parse(receiver.received[0]!.body).type).toBe('webhook.test')
      expect(await Bun.file(join(runDir, 'queue-data', 'queue.sqlite')).exists()).toBe(true)
    } finally {
      await p.stop()
      receiver.stop()
    }
  }, 30_000)
})

describe('the binary on the command line', () => {
  test('--version prints the package version; --help names the commands by the name the binary was started with', () => {
    const version = Bun.spawnSync(['./slipway', '--version'], { cwd: runDir })
    expect(version.exitCode).toBe(0)
    expect(version.stdout.toString()).toBe(`${packageJson.version}\n`)
    const local = Bun.spawnSync(['./slipway', '--help'], { cwd: runDir }).stdout.toString()
    expect(local).toStartWith('Usage: ./slipway [command]')
    expect(local).not.toContain('npm run')
    expect(Bun.spawnSync([binary, '--help']).stdout.toString()).toStartWith(`Usage: ${binary} [command]`)
    const bad = Bun.spawnSync(['./slipway', 'tenant', 'create'], { cwd: runDir, env: { ...process.env, DATABASE_URL: ':memory:', LOG_LEVEL: 'silent' } })
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr.toString()).toStartWith('usage: ./slipway tenant create --name <name>')
  })

  test('--licences prints the report computed at build time from the lock it was built from, with no file beside it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'slipway-licences-'))
    try {
      const out = Bun.spawnSync([binary, '--licences'], { cwd: empty })
      expect(out.exitCode).toBe(0)
      expect(out.stdout.toString().trimEnd()).toBe(formatReport(licenceReport(checkProject(join(import.meta.dir, '../..'))), packageJson.version))
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  test('a first start with no admin says to run the binary\'s own create-admin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slipway-bin-first-'))
    const port = freePort()
    const proc = Bun.spawn(['./slipway'], {
      cwd: runDir, stdout: 'pipe', stderr: 'inherit',
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${dir}/slipway.db`, LOG_LEVEL: 'warn', BOOTSTRAP_ADMIN_USERNAME: '', BOOTSTRAP_ADMIN_PASSWORD: '' },
    })
    try {
      let out = ''
      const reader = proc.stdout.getReader()
      while (!out.includes('no platform admin yet')) {
        const { value, done } = await reader.read()
        if (done) break
        out += new TextDecoder().decode(value)
      }
      const hint = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>).find((l) => l.msg === 'no platform admin yet')
      expect(hint?.howTo).toStartWith('./slipway create-admin <username>')
    } finally {
      proc.kill()
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)

  test('a port in use: one short line, exit 1, and no folder, database or master.key written', () => {
    const holder = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('taken') })
    const dir = mkdtempSync(join(tmpdir(), 'slipway-bin-port-'))
    try {
      const r = Bun.spawnSync([binary], { cwd: dir, env: { ...process.env, PORT: String(holder.port), HOST: '127.0.0.1', DATABASE_URL: 'file:./data/slipway.db', LOG_LEVEL: 'info', MASTER_KEY: '' } })
      expect(r.exitCode).toBe(1)
      expect(r.stderr.toString()).toBe(`slipway: cannot listen on 127.0.0.1:${holder.port}: the port is in use (another Slipway?); set PORT to a free port, or 0 for any\n`)
      expect(r.stdout.toString()).toBe('')
      expect(readdirSync(dir)).toEqual([])
    } finally {
      holder.stop(true)
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('operator commands in the binary', () => {
  test('reseal --check counts sealed values per key version', async () => {
    const dir = join(runDir, 'reseal-data')
    const p = await startProcess([binary], { cwd: runDir, dir })
    await p.stop()
    const r = Bun.spawnSync([binary, 'reseal', '--check'], { cwd: runDir, env: { ...process.env, DATABASE_URL: `file:${dir}/slipway.db`, LOG_LEVEL: 'silent' } })
    expect(r.exitCode).toBe(0)
    // the generated JWT key, sealed under the generated master key (version 1)
    expect(JSON.parse(r.stdout.toString())).toEqual({ currentVersion: 1, byVersion: { '1': 1 }, remaining: 0 })
  })
})

chainRoutesSuite('code the binary loads on first use', () => startProcess([binary], { cwd: runDir, env: { RPC_URL_SOLANA: 'http://127.0.0.1:9' } }))

coreHttpSuite('the compiled binary', () => startProcess([binary], { cwd: runDir }))
