import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'turso',
  schema: './src/db/tables.ts',
  out: './drizzle',
  dbCredentials: { url: 'file:./data/drizzle-kit.db' },
})
