/** Applies the migrations embedded at build time (same bookkeeping as drizzle's libSQL migrator). */
import { sql } from 'drizzle-orm'
import type { LibSQLDatabase } from 'drizzle-orm/libsql'
import { bundledMigrations } from './migrations-macro' with { type: 'macro' }

const TABLE = '__drizzle_migrations'

export async function applyMigrations(db: LibSQLDatabase<any>) {
  const migrations = bundledMigrations()
  await db.run(sql`CREATE TABLE IF NOT EXISTS ${sql.identifier(TABLE)} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`)
  const last = (await db.values<[number, string, string]>(sql`SELECT id, hash, created_at FROM ${sql.identifier(TABLE)} ORDER BY created_at DESC LIMIT 1`))[0]
  const statements = []
  for (const m of migrations) {
    if (last && Number(last[2]) >= m.folderMillis) continue
    for (const stmt of m.sql) if (stmt.trim()) statements.push(db.run(sql.raw(stmt)))
    statements.push(db.run(sql`INSERT INTO ${sql.identifier(TABLE)} ("hash", "created_at") VALUES(${m.hash}, ${m.folderMillis})`))
  }
  if (statements.length) await (db as unknown as { session: { migrate(s: unknown[]): Promise<void> } }).session.migrate(statements)
}
