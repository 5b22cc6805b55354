/** scripts/topology.sh: the operator's recipe for a primary, two edges and a worker on one machine. */
import { expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Api, signedHeaders } from '@tests/helpers/client'
import { freePort } from '@tests/helpers/process'
import { waitFor } from '@tests/transactions/helpers'

test('scripts/topology.sh starts the four; a user registered at edge 1 signs in at edge 2; Ctrl-C stops them all', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-topology-'))
  const ports = { SQLD_PORT: freePort(), WORKER_PORT: freePort(), EDGE1_PORT: freePort(), EDGE2_PORT: freePort() }
  const proc = Bun.spawn(['bash', 'scripts/topology.sh'], {
    env: {
      ...process.env, DIR: dir, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOG_LEVEL: 'silent',
      BOOTSTRAP_ADMIN_USERNAME: 'topo', BOOTSTRAP_ADMIN_PASSWORD: 'Topo-passw0rd', BUN: process.execPath,
    },
    stdout: 'pipe', stderr: 'inherit',
  })
  try {
    const reader = proc.stdout.getReader()
    let out = ''
    const deadline = Date.now() + 30_000
    while (!out.includes('ready;') && Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      out += new TextDecoder().decode(value)
    }
    expect(out).toContain('ready;')
    expect(out).toContain(`edge 2   http://127.0.0.1:${ports.EDGE2_PORT}`)
    const e1 = new Api(`http://127.0.0.1:${ports.EDGE1_PORT}`)
    const e2 = new Api(`http://127.0.0.1:${ports.EDGE2_PORT}`)
    const worker = new Api(`http://127.0.0.1:${ports.WORKER_PORT}`)
    expect((await worker.get('/health/ready')).body.checks).toEqual({ database: 'ok', queue: 'ok' })
    expect((await e2.get('/health/ready')).body.checks).toEqual({ database: 'ok', replica: 'ok' })
    const admin = (await e1.post('/v1/auth/admin/login', { username: 'topo', password: 'Topo-passw0rd' })).body.accessToken
    const tenant = (await e1.post('/v1/admin/tenants', { name: 'topology' }, { token: admin })).body
    const body = JSON.stringify({ username: 'topo_user', email: 't@example.com', password: 'Topo-passw0rd' })
    const reg = await fetch(`http://127.0.0.1:${ports.EDGE1_PORT}/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(tenant, 'POST', '/v1/auth/register', body, String(Math.floor(Date.now() / 1000))) }, body })
    expect(reg.status).toBe(201)
    expect((await e2.post('/v1/auth/login', { username: 'topo_user', password: 'Topo-passw0rd' }, { signedBy: tenant })).status).toBe(200)
    expect(existsSync(join(dir, 'master.key'))).toBe(true)
  } finally {
    proc.kill('SIGINT')
    expect(await proc.exited).toBeDefined()
    // everything the script started is gone: the ports answer nothing
    const down = await waitFor(() => fetch(`http://127.0.0.1:${ports.SQLD_PORT}/health`).then(() => false, () => true), (x) => x, 5000)
    expect(down).toBe(true)
    for (const p of [ports.WORKER_PORT, ports.EDGE1_PORT, ports.EDGE2_PORT]) await expect(fetch(`http://127.0.0.1:${p}/health`)).rejects.toThrow()
    rmSync(dir, { recursive: true, force: true })
  }
}, 60_000)
