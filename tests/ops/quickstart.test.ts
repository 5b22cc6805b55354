/**
 * The README's quick start, run as written against a real server process: `slipway tenant
 * create` prints the credentials, `npm run quickstart` (the signing client) registers, signs
 * in and reads the profile; docs/signing.md's openssl recipe signs in. Also: `--help`, and what a first start with no admin logs.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startProcess } from '@tests/helpers/process'

const dir = mkdtempSync(join(tmpdir(), 'slipway-quickstart-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const DATABASE_URL = `file:${join(dir, 'slipway.db')}`

const cli = (args: string[], env: Record<string, string> = {}) => {
  const r = Bun.spawnSync([process.execPath, 'src/index.ts', ...args], { env: { ...process.env, DATABASE_URL, LOG_LEVEL: 'silent', ...env } })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

describe('slipway commands', () => {
  test('--help lists every command and exits 0; an unknown command exits 2 with the usage', () => {
    for (const flag of ['--help', '-h', 'help']) {
      const help = cli([flag])
      expect(help.code).toBe(0)
      for (const cmd of ['tenant create --name', 'create-admin', 'reseal', 'healthcheck']) expect(help.out).toContain(cmd)
    }
    const unknown = cli(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain('unknown command: frobnicate')
    expect(unknown.err).toContain('tenant create --name')
    expect(cli(['tenant', 'create']).code).toBe(2)
  })
})

describe('quick start', () => {
  test('tenant create, then register, login and GET /v1/users/{id} with the client, against a running server', async () => {
    const server = await startProcess([process.execPath, 'src/index.ts'], { dir, env: { BOOTSTRAP_ADMIN_USERNAME: '', BOOTSTRAP_ADMIN_PASSWORD: '' } })
    try {
      const created = cli(['tenant', 'create', '--name', 'Acme'])
      expect(created.code).toBe(0)
      expect(created.err).toContain('tenant Acme created')
      // stdout is only export lines, for `eval "$(…)"`
      const vars = Object.fromEntries(created.out.trim().split('\n').map((line) => {
        const m = /^export (SLIPWAY_[A-Z_]+)=(\S+)$/.exec(line)
        expect(m, line).not.toBeNull()
        return [m![1]!, m![2]!]
      }))
      expect(Object.keys(vars).sort()).toEqual(['SLIPWAY_API_KEY', 'SLIPWAY_API_SECRET', 'SLIPWAY_TENANT_ID'])
      const run = Bun.spawnSync([process.execPath, 'scripts/quickstart.ts', 'alice', 'alice@example.com', 'Str0ng-Passw0rd'], {
        env: { ...process.env, ...vars, SLIPWAY_URL: server.url },
      })
      expect(run.stderr.toString()).toBe('')
      expect(run.exitCode).toBe(0)
      const profile = JSON.parse(run.stdout.toString())
      expect(profile).toMatchObject({ username: 'alice', email: 'alice@example.com' })
      // a second run finds alice registered and signs in (a second later: the same body signed in
      // the same second is the same signature, which the server refuses as a replay)
      await Bun.sleep(1100)
      const again = Bun.spawnSync([process.execPath, 'scripts/quickstart.ts', 'alice', 'alice@example.com', 'Str0ng-Passw0rd'], { env: { ...process.env, ...vars, SLIPWAY_URL: server.url } })
      expect(again.stderr.toString()).toBe('')
      expect(again.exitCode).toBe(0)
      expect(again.stdout.toString()).toContain('alice is already registered; signing in')
      // docs/signing.md's shell recipe (openssl and curl), as written, signs in alice
      const doc = await Bun.file('docs/signing.md').text()
      const recipe = /## In a shell, with openssl\n\n```sh\n([\s\S]*?)```/.exec(doc)![1]!.replaceAll('http://localhost:3000', server.url)
      await Bun.sleep(1100)
      const shell = Bun.spawnSync(['sh', '-c', recipe], { env: { ...process.env, ...vars } })
      expect(shell.exitCode).toBe(0)
      expect(JSON.parse(shell.stdout.toString())).toMatchObject({ user: { username: 'alice' } })
    } finally {
      await server.stop()
    }
  }, 60_000)

  test('a first start with no admin logs how to make one and where the docs are', async () => {
    const d = mkdtempSync(join(tmpdir(), 'slipway-quickstart-first-'))
    const port = freePort()
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      env: { ...process.env, DATABASE_URL: `file:${join(d, 'slipway.db')}`, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', BOOTSTRAP_ADMIN_USERNAME: '', BOOTSTRAP_ADMIN_PASSWORD: '' },
      stdout: 'pipe', stderr: 'pipe',
    })
    try {
      let out = ''
      const reader = proc.stdout.getReader()
      const decoder = new TextDecoder()
      const deadline = Date.now() + 20_000
      while (!out.includes('"msg":"listening"') && Date.now() < deadline) {
        const { value, done } = await reader.read()
        if (done) break
        out += decoder.decode(value)
      }
      const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>)
      const hint = lines.find((l) => l.msg === 'no platform admin yet')
      expect(hint?.howTo).toContain('npm run slipway -- create-admin')
      expect(hint?.howTo).toContain('BOOTSTRAP_ADMIN_USERNAME')
      expect(hint?.docs).toBe(`http://localhost:${port}/v1/docs`)
      expect(lines.find((l) => l.msg === 'listening')?.docs).toBe(`http://localhost:${port}/v1/docs`)
    } finally {
      proc.kill()
      await proc.exited
      rmSync(d, { recursive: true, force: true })
    }
  }, 30_000)
})
