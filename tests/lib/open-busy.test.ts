/**
 * Opening a local file while another process holds a lock on it waits for the lock (up to the
 * busy timeout) instead of failing at once with SQLITE_BUSY: the busy timeout is set before the
 * first statement that needs a lock (`PRAGMA journal_mode = WAL`). A restarted process met this
 * in the chaos run, while the killed one's successor was still finishing its own start.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '@/db/client'

const dir = mkdtempSync(join(tmpdir(), 'slipway-open-busy-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a file another process holds an exclusive lock on opens once the lock is released', async () => {
  const file = join(dir, 'busy.db')
  // another process: a database in rollback-journal mode, locked exclusively for 600 ms
  const holder = Bun.spawn([process.execPath, '-e', `
    const { createClient } = require('@libsql/client')
    const c = createClient({ url: 'file:${file}' })
    await c.execute('CREATE TABLE t (x)')
    const tx = await c.transaction('write')
    await tx.execute('INSERT INTO t VALUES (1)')
    console.log('locked')
    await Bun.sleep(600)
    await tx.commit()
    c.close()
  `], { cwd: join(import.meta.dir, '../..'), stdout: 'pipe', stderr: 'inherit' })
  const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader()
  expect(new TextDecoder().decode((await reader.read()).value)).toContain('locked')
  const started = Date.now()
  const database = await openDatabase({ url: `file:${file}`, migrate: async () => {} })
  try {
    expect(Date.now() - started).toBeLessThan(5000)
    const mode = await database.client.execute('PRAGMA journal_mode')
    expect(String(Object.values(mode.rows[0]!)[0])).toBe('wal')
  } finally {
    database.close()
    await holder.exited
  }
}, 15_000)
