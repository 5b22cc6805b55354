/**
 * Reads drizzle/ at build time. Imported `with { type: 'macro' }`, Bun runs it while
 * transpiling and inlines the result, so the compiled binary carries its migrations.
 */
import { join } from 'node:path'
import { readMigrationFiles } from 'drizzle-orm/migrator'

export function bundledMigrations() {
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, '../../drizzle') })
}
