// Baseline: bare Bun.serve doing the profile route's work outside the framework:
// verify the HS256 bearer token with jose and read the user's row (joined with its tenant) through
// @libsql/client, the stack's libSQL client (bare-auth-native.ts is the floor without it).
import { createClient } from '@libsql/client'
import { jwtVerify } from 'jose'
// the HMAC key imported once (jose imports a raw key on every verify otherwise)
import { COUNT, key, LIST, SQL, serveUsers } from './bare-users'

const db = createClient({ url: process.env.DATABASE_URL!, concurrency: 1 })

serveUsers({
  sub: async (token) => (await jwtVerify(token, key, { algorithms: ['HS256'] })).payload.sub ?? null,
  user: async (id) => (await db.execute({ sql: SQL, args: [id] })).rows[0],
  page: async (tenantId) => {
    const [rows, count] = await Promise.all([db.execute({ sql: LIST, args: [tenantId, 'active', 100, 0] }), db.execute({ sql: COUNT, args: [tenantId, 'active'] })])
    return { rows: rows.rows, total: Number(count.rows[0]!.n) }
  },
})
