import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'turso',
  // every table where it lives: the core tables, the outbox, each module's and each sandbox's own
  schema: ['./src/db/schema.ts', './src/jobs/schema.ts', './src/modules/*/schema.ts', './src/sandbox/*/schema.ts'],
  out: './drizzle',
  dbCredentials: { url: 'file:./data/drizzle-kit.db' },
})
