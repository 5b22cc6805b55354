// Baseline: bare Bun.serve doing the profile route's work outside the framework:
// verify the HS256 bearer token with jose and read the user's row (joined with its tenant) through
// @libsql/client, the stack's libSQL client (bare-auth-native.ts is the floor without it).
import { createClient } from '@libsql/client'
import { jwtVerify } from 'jose'
// the HMAC key imported once (jose imports a raw key on every verify otherwise)
import { COUNT, key, LIST, SQL, view } from './bare-users'

const db = createClient({ url: process.env.DATABASE_URL!, concurrency: 1 })

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  async fetch(req) {
    const auth = req.headers.get('authorization')
    if (!auth?.startsWith('Bearer ')) return Response.json({ message: 'Authentication required' }, { status: 401 })
    try {
      const { payload } = await jwtVerify(auth.slice(7), key, { algorithms: ['HS256'] })
      const { rows } = await db.execute({ sql: SQL, args: [payload.sub as string] })
      const u = rows[0]
      if (!u || u.status !== 'active') return Response.json({ message: 'Authentication required' }, { status: 401 })
      if (new URL(req.url).pathname === '/list') {
        // the operator's list: 100 users of the tenant and the total, as GET /v1/users/?limit=100
        const [rows, count] = await Promise.all([db.execute({ sql: LIST, args: [String(u.tenant_id), 'active', 100, 0] }), db.execute({ sql: COUNT, args: [String(u.tenant_id), 'active'] })])
        const total = Number(count.rows[0]!.n)
        return Response.json({ data: rows.rows.map(view), pagination: { total, limit: 100, offset: 0, hasMore: rows.rows.length < total } })
      }
      return Response.json(view(u))
    } catch {
      return Response.json({ message: 'Authentication required' }, { status: 401 })
    }
  },
})
console.log(`ready ${server.port}`)
