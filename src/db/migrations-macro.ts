/**
 * Reads drizzle/ at build time. Imported `with { type: 'macro' }`, Bun runs it while
 * transpiling and inlines the result, so the compiled binary carries its migrations.
 */
import { join } from 'node:path'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import Database from 'libsql'

export function bundledMigrations() {
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, '../../drizzle') })
}

/**
 * The schema every migration leaves, as the statements that create it in one go: each migration
 * applied in order to an empty in-memory libSQL database, then its objects read back from
 * sqlite_master in the order they were created (tables before their indexes and triggers), with
 * the text SQLite keeps for them (as ALTER TABLE rewrote it). src/db/migrate.ts gives a fresh
 * database this instead of the migrations one by one (tests/platform/fresh-schema.test.ts compares the two).
 * `null` when the migrations leave rows behind (seed data), which these statements would not carry:
 * a fresh database then gets the migrations one by one.
 */
export function bundledSchema(): string[] | null {
  const db = new Database(':memory:')
  try {
    for (const m of bundledMigrations()) for (const stmt of m.sql) if (stmt.trim()) db.exec(stmt)
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`).all()
    for (const t of tables as Array<{ name: unknown }>) if (db.prepare(`SELECT 1 FROM "${String(t.name).replaceAll('"', '""')}" LIMIT 1`).get() !== undefined) return null
    return db.prepare(`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid`).all().map((r) => String((r as { sql: unknown }).sql))
  } finally {
    db.close()
  }
}
