/**
 * Migration 0007 replaces the email lookup index with a unique one over active accounts. On a
 * database that already holds two active accounts with one email it must refuse, say why, and
 * keep nothing of itself; once the duplicate is resolved, it applies.
 */
import { afterAll, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client/sqlite3'
import { drizzle } from 'drizzle-orm/libsql/sqlite3'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { applyMigrations } from '@/db/migrate'

const dir = mkdtempSync(join(tmpdir(), 'slipway-email-migration-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('0007 refuses two active accounts with one email, keeps nothing of itself, and applies once one is resolved', async () => {
  // the migrations before 0007, applied by drizzle's own migrator as an older release did
  const before = join(dir, 'before')
  cpSync(join(import.meta.dir, '../../drizzle'), before, { recursive: true })
  const journalPath = join(before, 'meta/_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> }
  const all = journal.entries.length
  const at = journal.entries.findIndex((e) => e.tag === '0007_active_email_unique')
  expect(at).toBeGreaterThan(0)
  journal.entries = journal.entries.slice(0, at)
  writeFileSync(journalPath, JSON.stringify(journal))

  const client = createClient({ url: `file:${join(dir, 'old.db')}` })
  const db = drizzle(client)
  await migrate(db, { migrationsFolder: before })
  const insert = (id: string, username: string, email: string) => client.execute({
    sql: `INSERT INTO users (id, tenant_id, scope, username, username_key, email, email_key, role, status, password_changed_at, created_at, updated_at)
          VALUES (?, NULL, 'platform', ?, ?, ?, lower(?), 'admin', 'active', 0, 0, 0)`,
    args: [id, username, username, email, email],
  })
  await insert('u1', 'first', 'Same@example.com')
  await insert('u2', 'second', 'same@example.com')
  const indexes = async () => (await client.execute(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'users' ORDER BY name`)).rows.map((r) => String(r.name))
  const applied = async () => Number((await client.execute('SELECT count(*) AS n FROM __drizzle_migrations')).rows[0]!.n)

  await expect(applyMigrations(db)).rejects.toThrow(/UNIQUE constraint failed: users\.scope, users\.email_key/)
  expect(await indexes()).toContain('users_scope_email_idx')
  expect(await indexes()).not.toContain('users_scope_active_email_uq')
  expect(await applied()).toBe(at)

  await client.execute(`UPDATE users SET status = 'deleted', deleted_at = 1 WHERE id = 'u2'`)
  await applyMigrations(db)
  expect(await indexes()).toContain('users_scope_active_email_uq')
  expect(await indexes()).not.toContain('users_scope_email_idx')
  // 0007 and every migration after it
  expect(await applied()).toBe(all)
  client.close()
})
