/**
 * `slipway webhooks listen` against a real server process on a file database: the
 * listener re-points the tenant's sandbox webhook at a development route, prints each
 * delivery verified (and refuses a bad signature with 401), serves only its own tenant,
 * and on SIGINT puts the webhook back and deletes the route. `tenant create --admin` makes
 * the tenant administrator that manages webhooks; the `http://` refusal names the command.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash, createHmac } from 'node:crypto'
import { join } from 'node:path'
import { createClient, type Client } from '@libsql/client'
import { Webhook } from 'standardwebhooks'
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from '@tests/helpers/app'
import { PROCESS_ADMIN, startProcess, type RunningProcess } from '@tests/helpers/process'

const KEYS = { MASTER_KEY: TEST_MASTER_KEY, JWT_SECRET: TEST_JWT_SECRET }

let server: RunningProcess
let db: Client
let adminToken: string
let env: Record<string, string>

interface TenantVars { SLIPWAY_TENANT_ID: string; SLIPWAY_API_KEY: string; SLIPWAY_API_SECRET: string; SLIPWAY_ADMIN_USERNAME: string; SLIPWAY_ADMIN_PASSWORD: string }
let acme: TenantVars & { token: string }
let other: TenantVars & { token: string }

const cli = (args: string[], extra: Record<string, string> = {}) => {
  const r = Bun.spawnSync([process.execPath, 'src/index.ts', ...args], { env: { ...env, ...extra } })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

async function api(method: string, path: string, body?: unknown, token = adminToken) {
  const res = await fetch(server.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

/** A tenant-signed POST (docs/signing.md). */
async function signed(t: TenantVars, path: string, body: unknown) {
  const raw = JSON.stringify(body)
  const ts = String(Math.floor(Date.now() / 1000))
  const hash = createHash('sha256').update(raw).digest('hex')
  const sig = createHmac('sha256', t.SLIPWAY_API_SECRET).update(`POST\n${path}\n${ts}\n${hash}`).digest('hex')
  const res = await fetch(server.url + path, {
    method: 'POST', body: raw,
    headers: { 'content-type': 'application/json', 'x-tenant-api-key': t.SLIPWAY_API_KEY, 'x-timestamp': ts, 'x-signature': sig },
  })
  return { status: res.status, body: await res.json() as any }
}

async function createTenant(name: string, admin: string) {
  const created = cli(['tenant', 'create', '--name', name, '--admin', admin])
  expect(created.code).toBe(0)
  expect(created.err).toContain(`tenant administrator ${admin} created`)
  const vars = Object.fromEntries(created.out.trim().split('\n').map((line) => {
    const m = /^export (SLIPWAY_[A-Z_]+)=(\S+)$/.exec(line)
    expect(m, line).not.toBeNull()
    return [m![1]!, m![2]!]
  })) as unknown as TenantVars
  const login = await signed(vars, '/v1/auth/login', { username: vars.SLIPWAY_ADMIN_USERNAME, password: vars.SLIPWAY_ADMIN_PASSWORD })
  expect(login.status).toBe(200)
  expect(login.body.user.role).toBe('tenantadmin')
  return { ...vars, token: login.body.accessToken as string }
}

/** A running `slipway webhooks listen`, its output gathered as it comes. */
class Listener {
  out = ''
  err = ''
  origin = ''
  readonly proc: ReturnType<typeof Bun.spawn>
  constructor(args: string[]) {
    this.proc = Bun.spawn([process.execPath, 'src/index.ts', 'webhooks', 'listen', ...args], { env, stdout: 'pipe', stderr: 'pipe' })
    void this.pump(this.proc.stdout as ReadableStream<Uint8Array>, (s) => (this.out += s))
    void this.pump(this.proc.stderr as ReadableStream<Uint8Array>, (s) => (this.err += s))
  }
  private async pump(stream: ReadableStream<Uint8Array>, add: (s: string) => void) {
    const decoder = new TextDecoder()
    const reader = stream.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) add(decoder.decode(r.value, { stream: true }))
  }
  async ready() {
    await until(() => this.err.includes('Ready.') || this.proc.exitCode !== null, 20_000)
    expect(this.err).toContain('Ready.')
    this.origin = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(this.err)![1]!
    return this
  }
  async stop(signal: NodeJS.Signals = 'SIGINT') {
    this.proc.kill(signal)
    const code = await this.proc.exited
    await Bun.sleep(50)
    return code
  }
}

async function until(cond: () => boolean, ms = 10_000) {
  const deadline = Date.now() + ms
  while (!cond() && Date.now() < deadline) await Bun.sleep(25)
}

const hookPath = (tenantId: string, environment = 'sandbox') => `/v1/admin/tenants/${tenantId}/webhooks/${environment}`
const listenUrl = (tenantId: string) => `https://${tenantId}.listen.webhooks.test/events`
const routeCount = async () => Number((await db.execute('SELECT count(*) AS n FROM webhook_dev_routes')).rows[0]!.n)

beforeAll(async () => {
  server = await startProcess([process.execPath, 'src/index.ts'], { env: KEYS })
  const { ADMIN_PASSWORD: _unset, ...inherited } = process.env
  env = { ...inherited, ...KEYS, DATABASE_URL: `file:${join(server.dir, 'slipway.db')}`, LOG_LEVEL: 'silent' } as Record<string, string>
  db = createClient({ url: `file:${join(server.dir, 'slipway.db')}` })
  const login = await fetch(`${server.url}/v1/auth/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(PROCESS_ADMIN) })
  adminToken = (await login.json() as any).accessToken
  acme = await createTenant('Acme', 'acme-ops')
  other = await createTenant('Other', 'other-ops')
  for (const t of [acme, other]) {
    const res = await api('PATCH', `/v1/admin/tenants/${t.SLIPWAY_TENANT_ID}`, { settings: { bankRamp: { sandbox: { connected: true }, production: { connected: true } } } })
    expect(res.status).toBe(200)
  }
}, 60_000)
afterAll(async () => {
  db?.close()
  await server?.stop()
})

describe('tenant create --admin', () => {
  test('prints the administrator and a generated password as export lines; the administrator manages webhooks', async () => {
    expect(acme.SLIPWAY_ADMIN_USERNAME).toBe('acme-ops')
    expect(acme.SLIPWAY_ADMIN_PASSWORD.length).toBeGreaterThanOrEqual(20)
    const res = await api('PUT', hookPath(acme.SLIPWAY_TENANT_ID), { url: 'https://hooks.example.com/acme', eventTypes: ['ramp.kyc.updated'] }, acme.token)
    expect(res.status).toBe(201)
    // another tenant's administrator reaches nothing of Acme's
    expect((await api('GET', hookPath(acme.SLIPWAY_TENANT_ID), undefined, other.token)).status).toBe(404)
  })

  test('with ADMIN_PASSWORD, that password, not printed', async () => {
    const created = cli(['tenant', 'create', '--name', 'Chosen', '--admin', 'chosen-ops'], { ADMIN_PASSWORD: 'Chosen-passw0rd' })
    expect(created.code).toBe(0)
    expect(created.out).toContain('export SLIPWAY_ADMIN_USERNAME=chosen-ops')
    expect(created.out).not.toContain('SLIPWAY_ADMIN_PASSWORD')
    expect(created.out).not.toContain('Chosen-passw0rd')
    expect(cli(['tenant', 'create', '--name', 'Bad', '--admin', 'a b']).code).toBe(2)
  })
})

describe('an http:// address', () => {
  test('answers 400 not_https naming slipway webhooks listen and WEBHOOK_DEV_ROUTES', async () => {
    const res = await api('PUT', hookPath(acme.SLIPWAY_TENANT_ID), { url: 'http://localhost:4000/hooks' }, acme.token)
    expect(res.status).toBe(400)
    expect(res.body.details).toMatchObject({ code: 'RAMP_WEBHOOK_INVALID', field: 'url', reason: 'not_https' })
    expect(res.body.message).toContain('slipway webhooks listen --tenant')
    expect(res.body.message).toContain('WEBHOOK_DEV_ROUTES')
  })
})

describe('slipway webhooks listen', () => {
  test('re-points the sandbox webhook, prints a test event verified, refuses a bad signature, and puts everything back on SIGINT', async () => {
    const id = acme.SLIPWAY_TENANT_ID
    // the listen host is refused before a listener stores its route
    expect((await api('PUT', hookPath(id), { url: listenUrl(id) }, acme.token)).body.details?.reason).toBe('reserved_name')
    const listener = await new Listener(['--tenant', id]).ready()
    try {
      expect(listener.err).toContain(`posts to ${listenUrl(id)}`)
      expect(listener.err).toContain('on Ctrl-C it posts to https://hooks.example.com/acme again')
      const secret = /Signing secret: (whsec_\S+)/.exec(listener.err)![1]!
      const hook = await api('GET', hookPath(id), undefined, acme.token)
      expect(hook.body).toMatchObject({ url: listenUrl(id), eventTypes: ['ramp.kyc.updated'], status: 'active' })
      expect(hook.body.secretHint).toBe(secret.slice(-5, -1))
      expect(await routeCount()).toBe(1)

      const sent = await api('POST', `${hookPath(id)}/test`, undefined, acme.token)
      expect(sent.status).toBe(202)
      await until(() => listener.out.includes(sent.body.id))
      const line = listener.out.split('\n').find((l) => l.includes(sent.body.id))!
      expect(line).toContain('verified  webhook.test')
      expect(line).toContain(`"tenantId":"${id}"`)
      // the server's delivery log records the listener's 2xx
      let logged: any
      for (let i = 0; i < 100 && logged?.status !== 'done'; i++) {
        logged = (await api('GET', `${hookPath(id)}/deliveries`, undefined, acme.token)).body.data.find((d: any) => d.id === sent.body.id)
        if (logged?.status !== 'done') await Bun.sleep(50)
      }
      expect(logged).toMatchObject({ status: 'done', lastStatusCode: 204 })

      // a delivery whose signature does not match the secret: 401, and said so
      const body = JSON.stringify({ id: 'evt_forged', type: 'ramp.kyc.updated', data: {} })
      const ts = Math.floor(Date.now() / 1000)
      const forged = await fetch(`${listener.origin}/events`, {
        method: 'POST', body,
        headers: { 'content-type': 'application/json', 'webhook-id': 'evt_forged', 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` },
      })
      expect(forged.status).toBe(401)
      await until(() => listener.out.includes('evt_forged'))
      expect(listener.out).toMatch(/refused \(401: no signature matches the secret\)\s+evt_forged/)
      // the same body signed with the webhook's secret (as the standardwebhooks library signs) passes
      const good = new Webhook(secret).sign('evt_signed', new Date(ts * 1000), body)
      const ok = await fetch(`${listener.origin}/events`, { method: 'POST', body, headers: { 'webhook-id': 'evt_signed', 'webhook-timestamp': String(ts), 'webhook-signature': good } })
      expect(ok.status).toBe(204)
    } finally {
      expect(await listener.stop('SIGINT')).toBe(0)
    }
    expect(listener.err).toContain('SIGINT: the sandbox webhook posts to https://hooks.example.com/acme again')
    const after = await api('GET', hookPath(id), undefined, acme.token)
    expect(after.body).toMatchObject({ url: 'https://hooks.example.com/acme', eventTypes: ['ramp.kyc.updated'] })
    expect(await routeCount()).toBe(0)
    // the route is gone: the listen host is refused again
    expect((await api('PUT', hookPath(id), { url: listenUrl(id) }, acme.token)).body.details?.reason).toBe('reserved_name')
  }, 60_000)

  test('another tenant cannot use the route, and its deliveries never reach this tenant\'s listener', async () => {
    const id = acme.SLIPWAY_TENANT_ID
    const listener = await new Listener(['--tenant', id]).ready()
    try {
      // Other cannot register Acme's listen host, nor can Acme use it for production
      expect((await api('PUT', hookPath(other.SLIPWAY_TENANT_ID), { url: listenUrl(id) }, other.token)).body.details?.reason).toBe('reserved_name')
      expect((await api('PUT', hookPath(id, 'production'), { url: listenUrl(id) }, acme.token)).body.details?.reason).toBe('reserved_name')
      // even a row that names it (written behind the API's back) is not routed for Other
      expect((await api('PUT', hookPath(other.SLIPWAY_TENANT_ID), { url: 'https://hooks.example.com/other' }, other.token)).status).toBe(201)
      await db.execute({ sql: 'UPDATE webhooks SET url = ? WHERE tenant_id = ?', args: [listenUrl(id), other.SLIPWAY_TENANT_ID] })
      const sent = await api('POST', `${hookPath(other.SLIPWAY_TENANT_ID)}/test`, undefined, other.token)
      expect(sent.status).toBe(202)
      let delivery: any
      for (let i = 0; i < 100 && delivery?.status !== 'failed'; i++) {
        delivery = (await api('GET', `${hookPath(other.SLIPWAY_TENANT_ID)}/deliveries`, undefined, other.token)).body.data.find((d: any) => d.id === sent.body.id)
        if (delivery?.status !== 'failed') await Bun.sleep(50)
      }
      expect(delivery).toMatchObject({ status: 'failed', lastError: 'the host did not resolve' })
      expect(listener.out).not.toContain(sent.body.id)
    } finally {
      await db.execute({ sql: 'DELETE FROM webhooks WHERE tenant_id = ?', args: [other.SLIPWAY_TENANT_ID] })
      expect(await listener.stop('SIGTERM')).toBe(0)
    }
    expect(await routeCount()).toBe(0)
  }, 60_000)

  test('--forward-to posts a verified delivery on unchanged and answers with the receiver\'s status; --json prints one object per delivery', async () => {
    const id = acme.SLIPWAY_TENANT_ID
    const received: Array<{ body: string; headers: Headers }> = []
    let answer = 200
    const receiver = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async (req) => {
      received.push({ body: await req.text(), headers: req.headers })
      return new Response(null, { status: answer })
    } })
    const listener = await new Listener(['--tenant', id, '--forward-to', `http://127.0.0.1:${receiver.port}/slipway`, '--json']).ready()
    try {
      const secret = /Signing secret: (whsec_\S+)/.exec(listener.err)![1]!
      const deliveries = async (eventId: string) => {
        let d: any
        for (let i = 0; i < 100 && !['done', 'failed'].includes(d?.status); i++) {
          d = (await api('GET', `${hookPath(id)}/deliveries`, undefined, acme.token)).body.data.find((x: any) => x.id === eventId)
          if (!['done', 'failed'].includes(d?.status)) await Bun.sleep(50)
        }
        return d
      }
      const first = (await api('POST', `${hookPath(id)}/test`, undefined, acme.token)).body.id
      expect(await deliveries(first)).toMatchObject({ status: 'done', lastStatusCode: 200 })
      // the receiver verifies the forwarded copy with the printed secret, as it would Slipway's own
      expect(received).toHaveLength(1)
      const headers: Record<string, string> = {}
      received[0]!.headers.forEach((value, name) => { headers[name] = value })
      const event = new Webhook(secret).verify(received[0]!.body, headers) as any
      expect(event).toMatchObject({ id: first, type: 'webhook.test' })
      expect(received[0]!.headers.get('x-webhook-event')).toBe('webhook.test')
      answer = 500
      const second = (await api('POST', `${hookPath(id)}/test`, undefined, acme.token)).body.id
      expect(await deliveries(second)).toMatchObject({ status: 'failed', lastStatusCode: 500 })
      await until(() => listener.out.includes(second))
      const lines = listener.out.trim().split('\n').map((l) => JSON.parse(l))
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatchObject({ verified: true, status: 200, id: first, type: 'webhook.test', data: { tenantId: id }, forwarded: { status: 200 } })
      expect(lines[1]).toMatchObject({ verified: true, status: 500, id: second, forwarded: { status: 500 } })
    } finally {
      expect(await listener.stop('SIGINT')).toBe(0)
      receiver.stop(true)
    }
  }, 60_000)

  test('a tenant with no sandbox webhook gets one for the session, removed on SIGINT; a killed listener is undone by the next', async () => {
    const id = other.SLIPWAY_TENANT_ID
    expect((await api('GET', hookPath(id), undefined, other.token)).status).toBe(404)
    const killed = await new Listener(['--tenant', id]).ready()
    expect(killed.err).toContain('was created and posts to')
    expect(await killed.stop('SIGKILL')).not.toBe(0)
    expect(await routeCount()).toBe(1)
    // a second listener while the first is alive is refused; a dead one's route is taken over
    const next = await new Listener(['--tenant', id]).ready()
    expect(next.err).toContain('An earlier listener\'s route was left behind')
    expect(next.err).toContain('on Ctrl-C it is removed')
    const second = new Listener(['--tenant', id])
    expect(await second.proc.exited).toBe(1)
    expect(second.err).toContain('Another slipway webhooks listen for tenant')
    expect(await next.stop('SIGINT')).toBe(0)
    expect(next.err).toContain('the sandbox webhook this listener created is removed')
    expect((await api('GET', hookPath(id), undefined, other.token)).status).toBe(404)
    expect(await routeCount()).toBe(0)
  }, 60_000)

  test('a tenant whose sandbox bank ramp is not connected is told how to connect it; an unknown tenant and bad options exit non-zero', async () => {
    const created = cli(['tenant', 'create', '--name', 'Unconnected'])
    const tenantId = /SLIPWAY_TENANT_ID=(\S+)/.exec(created.out)![1]!
    const refused = cli(['webhooks', 'listen', '--tenant', tenantId])
    expect(refused.code).toBe(1)
    expect(refused.err).toContain('"bankRamp": { "sandbox": { "connected": true } }')
    expect(await routeCount()).toBe(0)
    expect(cli(['webhooks', 'listen', '--tenant', crypto.randomUUID()]).code).toBe(1)
    const usage = cli(['webhooks', 'listen'])
    expect(usage.code).toBe(2)
    expect(usage.err).toContain('usage: slipway webhooks listen --tenant')
    expect(cli(['--help']).out).toContain('webhooks listen --tenant')
  }, 30_000)
})
