import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '@/config'

describe('configuration', () => {
  test('embedded defaults need no variables', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({ port: 3000, databaseUrl: 'file:./data/slipway.db', publicBaseUrl: 'http://localhost:3000', role: 'all', mailFrom: 'no-reply@localhost' })
  })

  test('honours the DECISIONS.md variables', () => {
    const c = loadConfig({
      PORT: '8080', DATABASE_URL: ':memory:', BOOTSTRAP_ADMIN_USERNAME: 'ops', BOOTSTRAP_ADMIN_PASSWORD: 'Str0ng-pass', JWT_SECRET: 'j'.repeat(40),
      MASTER_KEY: 'a'.repeat(64), PUBLIC_BASE_URL: 'https://api.example.com/', SLIPWAY_ROLE: 'worker', RPC_URL_SOLANA_DEVNET: 'http://127.0.0.1:8899',
    })
    expect(c).toMatchObject({ port: 8080, databaseUrl: ':memory:', bootstrapAdminUsername: 'ops', publicBaseUrl: 'https://api.example.com', role: 'worker', mailFrom: 'no-reply@api.example.com' })
    expect(c.rpcUrls).toEqual({ 'solana-devnet': 'http://127.0.0.1:8899' })
  })

  test('every bad value is reported at once, by variable name', () => {
    let err: ConfigError | undefined
    try {
      loadConfig({ PORT: 'eighty', MASTER_KEY: 'short', JWT_SECRET: 'short', SLIPWAY_ROLE: 'both', BOOTSTRAP_ADMIN_USERNAME: 'ops', DATABASE_URL: 'postgres://x', TRUSTED_PROXIES: 'not-an-ip' })
    } catch (e) {
      err = e as ConfigError
    }
    expect(err).toBeInstanceOf(ConfigError)
    const text = err!.message
    for (const name of ['PORT', 'MASTER_KEY', 'JWT_SECRET', 'SLIPWAY_ROLE', 'BOOTSTRAP_ADMIN_PASSWORD', 'DATABASE_URL', 'TRUSTED_PROXIES']) expect(text).toContain(name)
  })

  test('WEBHOOK_DEV_ROUTES is refused in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_DEV_ROUTES: 'hooks.slipway.test=http://127.0.0.1:4000' })).toThrow(/WEBHOOK_DEV_ROUTES/)
    expect(loadConfig({ WEBHOOK_DEV_ROUTES: 'hooks.slipway.test=http://127.0.0.1:4000' }).webhookDevRoutes).toEqual({ 'hooks.slipway.test': 'http://127.0.0.1:4000' })
  })

  test('npm start exits with a clear message on a bad value', async () => {
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], { env: { ...process.env, PORT: '99999', DATABASE_URL: ':memory:' }, stdout: 'pipe', stderr: 'pipe' })
    expect(await proc.exited).toBe(1)
    const stderr = await new Response(proc.stderr).text()
    expect(stderr).toContain('Invalid configuration')
    expect(stderr).toContain('PORT')
  })
})

describe('config errors in plain words', () => {
  test('each refusal says what the setting must be, not the schema library\'s wording', () => {
    const messageOf = (env: Record<string, string>) => {
      try {
        loadConfig({ DATABASE_URL: ':memory:', ...env })
      } catch (err) {
        return (err as Error).message
      }
      throw new Error('accepted')
    }
    expect(messageOf({ LOG_LEVEL: 'loud' })).toContain('LOG_LEVEL (trace, debug, info, warn, error, fatal, silent): is not one of the allowed values (got "loud")')
    expect(messageOf({ DATABASE_TIMEOUT_MS: '5' })).toContain('DATABASE_TIMEOUT_MS (100-120000): must be at least 100 (got "5")')
    expect(messageOf({ HIBP_ON_ERROR: 'maybe' })).toContain('HIBP_ON_ERROR (reject or allow): is not one of the allowed values')
    expect(messageOf({ SLIPWAY_ROLE: 'both' })).toContain('SLIPWAY_ROLE (all, api or worker): is not one of the allowed values (got "both")')
    for (const env of [{ LOG_LEVEL: 'loud' }, { DATABASE_TIMEOUT_MS: '5' }, { JWT_SECRET: 'short' }] as Record<string, string>[]) expect(messageOf(env)).not.toMatch(/Expected/)
  })
})

describe('a refused secret is named, never shown', () => {
  test('JWT_SECRET, METRICS_TOKEN, BOOTSTRAP_ADMIN_PASSWORD and DATABASE_AUTH_TOKEN refused by the schema: their values stay out of the message', () => {
    const values = { JWT_SECRET: 'short-but-secret-value', METRICS_TOKEN: 'tiny-token', BOOTSTRAP_ADMIN_USERNAME: 'ops', BOOTSTRAP_ADMIN_PASSWORD: 'pw-xyz' }
    let message = ''
    try {
      loadConfig({ DATABASE_URL: ':memory:', ...values })
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError)
      message = (err as Error).message
    }
    expect(message).toContain('JWT_SECRET')
    expect(message).toContain('METRICS_TOKEN')
    expect(message).toContain('BOOTSTRAP_ADMIN_PASSWORD')
    for (const secret of ['short-but-secret-value', 'tiny-token', 'pw-xyz']) expect(message).not.toContain(secret)
  })
})

describe('.env.example', () => {
  test('lists every variable src/config.ts reads', async () => {
    const files = ['src/config.ts', ...new Bun.Glob('src/config/*.ts').scanSync('.')]
    const source = (await Promise.all(files.map((f) => Bun.file(f).text()))).join('\n')
    const read = new Set([...source.matchAll(/env\.([A-Z][A-Z0-9_]+)|intVar\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]!))
    read.add('RPC_URL_<REGISTRY ID>')
    expect(read.size).toBeGreaterThan(35)
    const example = await Bun.file('.env.example').text()
    const listed = new Set([...example.matchAll(/^# ([A-Z][A-Z0-9_<> ]+?)=/gm)].map((m) => m[1]!))
    expect([...read].filter((name) => !listed.has(name))).toEqual([])
  })
})
