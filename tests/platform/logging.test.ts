import { expect, test } from 'bun:test'
import { createLogger, MAX_FIELD_CHARS } from '@/lib/logger'

test('a log field longer than the bound is cut, and says how long it was', () => {
  const lines: string[] = []
  const log = createLogger({ sink: { write: (c) => lines.push(...new TextDecoder().decode(c).split('\n').filter(Boolean)) } })
  log.error('unhandled error', { path: `/admin/queues/static/${'a'.repeat(10_000)}`, status: 500 })
  log.flush()
  const line = JSON.parse(lines[0]!)
  expect(line.path.length).toBeLessThan(MAX_FIELD_CHARS + 40)
  expect(line.path).toEndWith('…(10021 chars)')
  expect(line.status).toBe(500)
})

test('the request line is the same JSON as info("request", …), escapes what JSON must, and bounds the path', () => {
  const lines: string[] = []
  const log = createLogger({ sink: { write: (c) => lines.push(...new TextDecoder().decode(c).split('\n').filter(Boolean)) } })
  const cases = [
    { requestId: 'a1b2', method: 'GET', path: '/health', status: 200, durationMs: 0.12 },
    { requestId: 'id"\\', method: 'PATCH', path: '/v1/"quoted"\\back\nline\u2028\ud800😀é', status: 404, durationMs: 12 },
    { requestId: 'x', method: 'POST', path: `/${'p'.repeat(2000)}`, status: 413, durationMs: 1234.56 },
    // durations as the server rounds them (hundredths), and what it never sends
    ...[0, 0.05, 0.1, 1.5, 100, 99.99, 12345678.9, -1, 1e21, 0.123, Number.NaN, Infinity].map((durationMs) => ({ requestId: 'd', method: 'GET', path: '/é\u007f', status: 200, durationMs })),
  ]
  for (const c of cases) {
    log.request(c.requestId, c.method, c.path, c.status, c.durationMs)
    log.info('request', c)
  }
  log.flush()
  expect(lines).toHaveLength(2 * cases.length)
  for (let i = 0; i < cases.length; i++) {
    const [fast, plain] = [JSON.parse(lines[2 * i]!), JSON.parse(lines[2 * i + 1]!)]
    expect(fast.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect({ ...fast, time: 0 }).toEqual({ ...plain, time: 0 })
    // byte for byte, the time aside: numbers and escapes written as JSON.stringify writes them
    const untimed = (line: string) => line.replace(/"time":"[^"]*"/, '"time":""')
    expect(untimed(lines[2 * i]!)).toBe(untimed(lines[2 * i + 1]!))
  }
  expect(JSON.parse(lines[4]!).path).toEndWith('…(2001 chars)')
})

test('a request line prepared for a fixed method, path and status (requestOf) is the same JSON as request()', () => {
  const lines: string[] = []
  const log = createLogger({ sink: { write: (c) => lines.push(...new TextDecoder().decode(c).split('\n').filter(Boolean)) } })
  const cases = [
    { requestId: crypto.randomUUID(), method: 'GET', path: '/health', status: 200, durationMs: 0.01 },
    { requestId: 'id"\\', method: 'HEAD', path: '/v1/"quoted"\\back\u2028😀é', status: 404, durationMs: 12 },
    { requestId: 'x', method: 'GET', path: `/${'p'.repeat(2000)}`, status: 200, durationMs: Number.NaN },
  ]
  for (const c of cases) {
    const line = log.requestOf(c.method, c.path, c.status)
    // twice: the prepared middle is copied, not consumed
    for (let i = 0; i < 2; i++) {
      line(c.requestId, c.durationMs)
      log.request(c.requestId, c.method, c.path, c.status, c.durationMs)
    }
  }
  log.flush()
  expect(lines).toHaveLength(4 * cases.length)
  const untimed = (line: string) => line.replace(/"time":"[^"]*"/, '"time":""')
  for (let i = 0; i < lines.length; i += 2) {
    expect(JSON.parse(lines[i]!).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(untimed(lines[i]!)).toBe(untimed(lines[i + 1]!))
  }
  expect(JSON.parse(lines[8]!).path).toEndWith('…(2001 chars)')
  // the time in a request line's head is the time it was written, not the first line's
  const at = Date.now()
  while (Date.now() < at + 3) { /* the next milliseconds */ }
  log.request('later', 'GET', '/health', 200, 1)
  log.flush()
  expect(Date.parse(JSON.parse(lines.at(-1)!).time)).toBeGreaterThanOrEqual(at + 3)
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: 'info', msg: 'request', requestId: 'later' })
})

test('a logger below info writes no request line, prepared or not', () => {
  const lines: string[] = []
  const log = createLogger({ level: 'warn', sink: { write: (c) => lines.push(new TextDecoder().decode(c)) } })
  log.requestOf('GET', '/health', 200)('a', 1)
  log.request('b', 'GET', '/health', 200, 1)
  log.flush()
  expect(lines).toEqual([])
})

test('Bun\'s process.stdout.write copies what it cannot write at once: the logger hands it its buffer, reused after the call', async () => {
  // A pipe nobody reads yet fills up, so the chunk written after 1 MiB waits in Bun's own buffer;
  // the child then writes over its chunk, as the logger does with its buffer after a flush.
  const child = Bun.spawn([process.execPath, '-e', `
    process.stdout.write(new Uint8Array(1 << 20).fill(65))
    const chunk = new Uint8Array(16).fill(66)
    chunk[15] = 10
    process.stdout.write(chunk)
    chunk.fill(67)
    process.stderr.write('written\\n')
  `], { stdout: 'pipe', stderr: 'pipe' })
  const reader = child.stderr.getReader()
  expect(new TextDecoder().decode((await reader.read()).value)).toBe('written\n')
  const out = Buffer.from(await new Response(child.stdout).arrayBuffer())
  await child.exited
  expect(out.length).toBe((1 << 20) + 16)
  expect(out.subarray(1 << 20).toString()).toBe(`${'B'.repeat(15)}\n`)
})
