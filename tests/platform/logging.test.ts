import { expect, test } from 'bun:test'
import { createLogger, MAX_FIELD_CHARS } from '@/lib/logger'

test('a log field longer than the bound is cut, and says how long it was', () => {
  const lines: string[] = []
  const log = createLogger({ sink: { write: (c) => lines.push(...c.split('\n').filter(Boolean)) } })
  log.error('unhandled error', { path: `/admin/queues/static/${'a'.repeat(10_000)}`, status: 500 })
  log.flush()
  const line = JSON.parse(lines[0]!)
  expect(line.path.length).toBeLessThan(MAX_FIELD_CHARS + 40)
  expect(line.path).toEndWith('…(10021 chars)')
  expect(line.status).toBe(500)
})
