/**
 * How the server starts and what it says when it cannot: a port in use is one line on
 * stderr and leaves the folder untouched; `--version`; the hints name the command a clone
 * runs (the compiled binary's own name is checked in binary.test.ts); LOG_LEVEL's levels.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '@/config'
import { createLogger, LOG_LEVELS, type LogLevel } from '@/lib/logger'
import { freePort } from '@tests/helpers/process'
import packageJson from '../../package.json'

const dir = mkdtempSync(join(tmpdir(), 'slipway-startup-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const serverEnv = (port: number, dataDir: string, env: Record<string, string> = {}) => ({
  ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${join(dataDir, 'slipway.db')}`, DATA_DIR: dataDir,
  LOG_LEVEL: 'info', BOOTSTRAP_ADMIN_USERNAME: '', BOOTSTRAP_ADMIN_PASSWORD: '', MASTER_KEY: '', ...env,
})

describe('a port in use', () => {
  test('stops the server with one line naming the address and PORT, exit 1, and nothing written', () => {
    const holder = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('taken') })
    const folder = join(dir, 'in-use')
    mkdirSync(folder)
    const dataDir = join(folder, 'data')
    try {
      const r = Bun.spawnSync([process.execPath, join(process.cwd(), 'src/index.ts')], { cwd: folder, env: serverEnv(holder.port!, dataDir) })
      const err = r.stderr.toString()
      expect(r.exitCode).toBe(1)
      expect(err).toBe(`slipway: cannot listen on 127.0.0.1:${holder.port}: the port is in use (another Slipway?); set PORT to a free port, or 0 for any\n`)
      expect(r.stdout.toString()).toBe('')
      // no data folder: no database file, no master.key, no queue
      expect(existsSync(dataDir)).toBe(false)
      expect(readdirSync(folder)).toEqual([])
    } finally {
      holder.stop(true)
    }
  })
})

describe('slipway --version', () => {
  test('prints the package version and exits 0, without reading the configuration', () => {
    for (const flag of ['--version', '-v', 'version']) {
      // a bad setting would stop any command that reads the configuration
      const r = Bun.spawnSync([process.execPath, 'src/index.ts', flag], { env: { ...process.env, PORT: 'not-a-port' } })
      expect(r.exitCode).toBe(0)
      expect(r.stdout.toString()).toBe(`${packageJson.version}\n`)
    }
  })

  test('--help lists it and names the commands as a clone runs them', () => {
    const r = Bun.spawnSync([process.execPath, 'src/index.ts', '--help'])
    const out = r.stdout.toString()
    expect(out).toStartWith('Usage: npm run slipway -- [command]')
    expect(out).toContain(`--version, -v                 the version (${packageJson.version})`)
    const bad = Bun.spawnSync([process.execPath, 'src/index.ts', 'tenant', 'create'], { env: { ...process.env, LOG_LEVEL: 'silent' } })
    expect(bad.stderr.toString()).toStartWith('usage: npm run slipway -- tenant create --name <name>')
  })
})

describe('LOG_LEVEL', () => {
  test('takes the usual level names, in any case; another value names them all', () => {
    for (const level of LOG_LEVELS) {
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level)
      expect(loadConfig({ LOG_LEVEL: level.toUpperCase() }).logLevel).toBe(level)
    }
    expect(loadConfig({}).logLevel).toBe('info')
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(ConfigError)
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow('LOG_LEVEL (trace, debug, info, warn, error, fatal, silent)')
  })

  test('each level writes its lines and the more severe ones', () => {
    const written = (level: LogLevel) => {
      const lines: string[] = []
      const log = createLogger({ level, sink: { write: (c) => lines.push(...new TextDecoder().decode(c).split('\n').filter(Boolean)) } })
      log.request('req_1', 'GET', '/health', 200, 1)
      log.info('an info line')
      log.warn('a warning')
      log.error('an error')
      log.flush()
      return lines.map((l) => JSON.parse(l).msg as string)
    }
    const all = ['request', 'an info line', 'a warning', 'an error']
    expect(written('trace')).toEqual(all)
    expect(written('debug')).toEqual(all)
    expect(written('info')).toEqual(all)
    expect(written('warn')).toEqual(['a warning', 'an error'])
    expect(written('error')).toEqual(['an error'])
    expect(written('fatal')).toEqual([])
    expect(written('silent')).toEqual([])
  })

  test('a server at warn logs its warnings but not its request and start-up lines', async () => {
    const port = freePort()
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], { env: serverEnv(port, join(dir, 'warn'), { LOG_LEVEL: 'warn' }), stdout: 'pipe', stderr: 'inherit' })
    try {
      const deadline = Date.now() + 20_000
      while (Date.now() < deadline) {
        const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null)
        if (res?.ok) break
        await Bun.sleep(50)
      }
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200)
      proc.kill('SIGTERM')
      await proc.exited
      const lines = (await new Response(proc.stdout).text()).trim().split('\n').map((l) => JSON.parse(l) as { level: string; msg: string })
      // the two warnings of a first start: a generated master key, no admin yet
      expect(lines.map((l) => l.msg.split(':')[0])).toEqual(['MASTER_KEY is not set', 'no platform admin yet'])
      expect(lines.every((l) => l.level === 'warn')).toBe(true)
    } finally {
      proc.kill()
      await proc.exited
    }
  }, 30_000)
})

describe('the devnet\'s settings', () => {
  test('a server started with .env.devnet (as npm start reads it) logs "devnet settings read" naming the file and its settings', async () => {
    const port = freePort()
    const folder = join(dir, 'devnet-read')
    mkdirSync(folder)
    const envFile = join(folder, '.env.devnet')
    await Bun.write(envFile, `RPC_URL_SEPOLIA=http://127.0.0.1:1\nSLIPWAY_DEVNET=${envFile}\nSLIPWAY_DEVNET_SETTINGS=RPC_URL_SEPOLIA\n`)
    const proc = Bun.spawn([process.execPath, `--env-file=${envFile}`, join(process.cwd(), 'src/index.ts')], { cwd: folder, env: serverEnv(port, join(folder, 'data')), stdout: 'pipe', stderr: 'inherit' })
    try {
      const deadline = Date.now() + 20_000
      while (Date.now() < deadline && !(await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false))) await Bun.sleep(50)
      proc.kill('SIGTERM')
      await proc.exited
      const lines = (await new Response(proc.stdout).text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(lines.find((l) => l.msg === 'devnet settings read')).toMatchObject({ level: 'info', file: envFile, settings: 'RPC_URL_SEPOLIA' })
      expect(lines.some((l) => l.msg === 'devnet settings not read')).toBe(false)
    } finally {
      proc.kill()
      await proc.exited
    }
  }, 30_000)

  test('a .env.devnet in the working folder that was not read: "devnet settings not read" says to restart after npm run devnet; none: no line', async () => {
    const { devnetNotice } = await import('@/ops/devnet-notice')
    const folder = join(dir, 'devnet-unread')
    mkdirSync(folder)
    expect(devnetNotice({}, folder)).toBeUndefined()
    await Bun.write(join(folder, '.env.devnet'), 'RPC_URL_SEPOLIA=http://127.0.0.1:1\n')
    const notice = devnetNotice({}, folder)!
    expect([notice.level, notice.message, notice.fields.file]).toEqual(['warn', 'devnet settings not read', join(folder, '.env.devnet')])
    expect(String(notice.fields.howTo)).toContain('restart Slipway after `npm run devnet`')
  })
})

describe('the bootstrap admin', () => {
  // Made after the server answers /health (its password hash is about 35 ms of a start's CPU): a request
  // that comes meanwhile waits for it, so an admin's first sign-in never meets a missing admin.
  test('a sign-in sent the moment a fresh server answers /health waits for the admin and succeeds', async () => {
    const port = freePort()
    const dataDir = join(dir, 'bootstrap')
    // the production argon2 cost (tests/setup.ts lowers it), so the hash takes as long as in a real start
    const env = serverEnv(port, dataDir, { LOG_LEVEL: 'silent', BOOTSTRAP_ADMIN_USERNAME: 'first', BOOTSTRAP_ADMIN_PASSWORD: 'First-passw0rd', PASSWORD_HASH_MEMORY_KIB: '' })
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], { env, stdout: 'ignore', stderr: 'inherit' })
    try {
      const url = `http://127.0.0.1:${port}`
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`)
        const health = await fetch(`${url}/health`).catch(() => undefined)
        if (health?.ok) break
        await Bun.sleep(1)
      }
      const body = JSON.stringify({ username: 'first', password: 'First-passw0rd' })
      const login = await fetch(`${url}/v1/auth/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(login.status).toBe(200)
      expect(((await login.json()) as { user: { role: string } }).user.role).toBe('admin')
    } finally {
      proc.kill()
      await proc.exited
    }
  })
})
