import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { postPinned } from '@/modules/webhooks/transport'

// A certificate for hooks.example.com (test fixture, 10 years), served on 127.0.0.1.
const dir = join(import.meta.dir, '../fakes/tls')
const cert = readFileSync(join(dir, 'hooks.example.com.crt'), 'utf8')
const key = readFileSync(join(dir, 'hooks.example.com.key'), 'utf8')
let server: ReturnType<typeof Bun.serve>
const seen: Array<{ host: string | null; path: string }> = []

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1', port: 0, tls: { cert, key },
    fetch: (req) => {
      const u = new URL(req.url)
      seen.push({ host: req.headers.get('host'), path: u.pathname + u.search })
      if (u.pathname === '/slow') return Bun.sleep(10_000).then(() => new Response('late'))
      if (u.pathname === '/redirect') return new Response(null, { status: 307, headers: { location: 'https://hooks.example.com/elsewhere' } })
      return new Response('ok', { status: 204 })
    },
  })
})
afterAll(() => server.stop(true))

describe('connection pinned to the checked address', () => {
  const base = () => ({ address: '127.0.0.1', port: server.port, headers: { 'content-type': 'application/json' }, body: '{}', ca: cert })

  test('connects to the given address and verifies the certificate for the hostname', async () => {
    const res = await postPinned({ ...base(), hostname: 'hooks.example.com', pathAndQuery: '/in?x=1' })
    expect(res.status).toBe(204)
    expect(seen.at(-1)).toEqual({ host: 'hooks.example.com', path: '/in?x=1' })
  })

  test('a certificate for another name fails the attempt', async () => {
    await expect(postPinned({ ...base(), hostname: 'other.example.com', pathAndQuery: '/in' })).rejects.toThrow()
  })

  test('an untrusted certificate fails the attempt', async () => {
    await expect(postPinned({ ...base(), ca: undefined, hostname: 'hooks.example.com', pathAndQuery: '/in' })).rejects.toThrow()
  })

  test('no answer within the time limit aborts the attempt', async () => {
    const started = Date.now()
    const err = await postPinned({ ...base(), hostname: 'hooks.example.com', pathAndQuery: '/slow', timeoutMs: 150 }).catch((e) => e)
    expect(err.name).toBe('TimeoutError')
    // aborted at 150 ms, long before the 10 s answer (the margin is for a busy machine)
    expect(Date.now() - started).toBeLessThan(5000)
  })

  test('redirects are not followed', async () => {
    const before = seen.length
    const res = await postPinned({ ...base(), hostname: 'hooks.example.com', pathAndQuery: '/redirect' })
    expect(res.status).toBe(307)
    expect(seen.length).toBe(before + 1)
  })
})
