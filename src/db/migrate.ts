/** Applies the migrations embedded at build time (same bookkeeping as drizzle's libSQL migrator). */
import type { Client } from '@libsql/client'
import { sql } from 'drizzle-orm'
import type { LibSQLDatabase } from 'drizzle-orm/libsql'
import { bundledMigrations, bundledSchema } from './migrations-macro' with { type: 'macro' }

const TABLE = '__drizzle_migrations'
/** The page cache a fresh database's schema is written through (below). */
const SCHEMA_CACHE_PAGES = 16

export async function applyMigrations(db: LibSQLDatabase<any>) {
  const migrations = bundledMigrations()
  await db.run(sql`CREATE TABLE IF NOT EXISTS ${sql.identifier(TABLE)} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`)
  const last = (await db.values<[number, string, string]>(sql`SELECT id, hash, created_at FROM ${sql.identifier(TABLE)} ORDER BY created_at DESC LIMIT 1`))[0]
  const schema = bundledSchema()
  if (!last && schema) {
    // A fresh database: the schema all the migrations leave, created in one transaction (about a
    // fifth of the CPU of running them one by one, src/db/migrations-macro.ts), and each migration
    // recorded as drizzle's migrator records it, so the next ones apply as on any other database.
    // The schema's pages are written through a page cache of a few pages: with the connection's
    // own (2 MiB), every page it wrote stayed cached, about 1 MiB of the C heap that a restart never
    // read, and freeing them (PRAGMA shrink_memory) left the heap's pages resident between live
    // allocations (docs/operations.md, "Memory"). The connection's setting is restored after. Only
    // a connection in this process (a file): a server's memory is its own, and sqld refuses the pragma.
    const client = (db as unknown as { session: { client: Client } }).session.client
    const local = client.protocol === 'file'
    const cacheSize = local ? (await client.execute('PRAGMA cache_size')).rows[0]?.[0] ?? -2000 : undefined
    if (local) await client.execute(`PRAGMA cache_size = ${SCHEMA_CACHE_PAGES}`)
    try {
      if (local) {
        // One script (SQLite's exec: each statement prepared, run and freed before the next), not a
        // batch of statements each held by a JavaScript object until the collector frees it: those
        // left 0.7 MiB of holes in the C heap. The values are the build's own (hashes, times).
        const quote = (v: string) => `'${v.replaceAll("'", "''")}'`
        const records = migrations.map((m) => `INSERT INTO "${TABLE}" ("hash", "created_at") VALUES (${quote(m.hash)}, ${Number(m.folderMillis)})`)
        // a script that fails part-way leaves its transaction open: the client rolls it back as it releases the connection
        await client.executeMultiple(['PRAGMA foreign_keys = OFF', 'BEGIN', ...schema, ...records, 'COMMIT'].join(';\n'))
      } else {
        await client.migrate([
          ...schema.map((s) => ({ sql: s, args: [] })),
          ...migrations.map((m) => ({ sql: `INSERT INTO "${TABLE}" ("hash", "created_at") VALUES (?, ?)`, args: [m.hash, m.folderMillis] })),
        ])
      }
    } finally {
      if (local) {
        await client.execute('PRAGMA foreign_keys = ON')
        await client.execute(`PRAGMA cache_size = ${Number(cacheSize)}`)
      }
    }
    return
  }
  const statements = []
  for (const m of migrations) {
    if (last && Number(last[2]) >= m.folderMillis) continue
    for (const stmt of m.sql) if (stmt.trim()) statements.push(db.run(sql.raw(stmt)))
    statements.push(db.run(sql`INSERT INTO ${sql.identifier(TABLE)} ("hash", "created_at") VALUES(${m.hash}, ${m.folderMillis})`))
  }
  if (statements.length) await (db as unknown as { session: { migrate(s: unknown[]): Promise<void> } }).session.migrate(statements)
}
