/**
 * Sealed values at rest, as `slipway reseal` sees them. Each module that seals values
 * exports its `sealedColumns` (the module's `sealed.ts`, or its repo), and
 * src/ops/reseal.ts loops over those lists: the tool never imports a module's tables,
 * and a module that adds a sealed column adds it to its own list.
 * (The core's own sealed value, the generated JWT key, is listed in src/deps.ts beside the code that seals it.)
 */
import { and, asc, eq, getTableColumns, gt, isNotNull, like, not, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { Sealer } from '../lib/crypto'
import type { Database, Db } from './client'

/** One sealed value: where it lives (`key`), its associated data, and the sealed text as read. */
export interface SealedItem {
  key: string
  sealed: string
  aad: string
  /** `sealed` holds the value in clear, as an earlier version wrote it: reseal seals it */
  clear?: boolean
}

export interface SealedColumn {
  /** the name the reseal report uses */
  name: string
  /** up to `limit` rows after the cursor `after`, in key order: the values among them under another version than `current`, and the new cursor (undefined at the end) */
  scan(db: Db, current: number, after: string, limit: number): Promise<{ items: SealedItem[]; last?: string }>
  /** writes `next` in one write transaction where the value is still `item.sealed`; false when it changed meanwhile */
  write(database: Database, item: SealedItem, next: string): Promise<boolean>
  /** every sealed value of the column, for the version count */
  all(db: Db): Promise<string[]>
}

/** Sealed text starts with `v<version>.`: values under another version (or in clear), found in SQL. */
export const notCurrentVersion = (column: SQLiteColumn, current: number) => not(like(column, `v${current}.%`))

export interface TextColumnOptions {
  name: string
  table: SQLiteTable
  /** the text primary key, the scan's cursor */
  id: SQLiteColumn
  /** the sealed text */
  value: SQLiteColumn
  /** the row's tenant, when the associated data names it */
  tenantId?: SQLiteColumn
  aad(row: { id: string; tenantId: string | null }): string
  /** other columns written with the new value, such as a key version kept beside it */
  alsoSet?(next: string): Record<string, unknown>
  /** earlier versions wrote the column in clear: a value without the sealed form is such a value, to be sealed */
  clearLegacy?: boolean
}

/**
 * The common case: one sealed text column (possibly null) in a table with a text
 * primary key. The write is conditional on the value read, so a secret the API
 * replaced in the meantime is left as the API wrote it.
 */
export function sealedTextColumn(o: TextColumnOptions): SealedColumn {
  const key = (column: SQLiteColumn) => Object.entries(getTableColumns(o.table)).find(([, c]) => c === column)![0]
  const valueKey = key(o.value)
  const present: SQL = isNotNull(o.value)
  return {
    name: o.name,
    async scan(db, current, after, limit) {
      const rows = await db.select({ id: o.id, tenantId: o.tenantId ?? o.id, v: o.value }).from(o.table)
        .where(and(gt(o.id, after), present, notCurrentVersion(o.value, current))).orderBy(asc(o.id)).limit(limit) as Array<{ id: string; tenantId: string | null; v: string }>
      return {
        items: rows.map((r) => ({
          key: r.id, sealed: r.v, aad: o.aad({ id: r.id, tenantId: o.tenantId ? r.tenantId : null }),
          ...(o.clearLegacy && !Sealer.isSealed(r.v) ? { clear: true } : {}),
        })),
        last: rows.at(-1)?.id,
      }
    },
    async write(database, item, next) {
      const set = { [valueKey]: next, ...o.alsoSet?.(next) }
      const r = await database.write((tx) => tx.update(o.table).set(set).where(and(eq(o.id, item.key), eq(o.value, item.sealed))).returning({ id: o.id }))
      return r.length === 1
    },
    async all(db) {
      const rows = await db.select({ v: o.value }).from(o.table).where(present) as Array<{ v: string }>
      return rows.map((r) => r.v)
    },
  }
}
