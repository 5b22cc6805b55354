// Baseline: bare Bun.serve doing the profile route's work outside the framework:
// verify the HS256 bearer token with jose and read the user's row (joined with its tenant) through
// @libsql/client, the stack's libSQL client (bare-auth-native.ts is the floor without it).
import { createClient } from '@libsql/client'
import { jwtVerify } from 'jose'

// the HMAC key imported once (jose imports a raw key on every verify otherwise), as Slipway does
const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(process.env.JWT_SECRET!), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
const db = createClient({ url: process.env.DATABASE_URL!, concurrency: 1 })
const SQL = 'select u.*, t.status as tenant_status from users u left join tenants t on t.id = u.tenant_id where u.id = ?'
const LIST = 'select * from users where scope = ? and status = ? order by created_at, id limit ? offset ?'
const COUNT = 'select count(*) as n from users where scope = ? and status = ?'
const view = (u: Record<string, unknown>) => ({ id: u.id, tenantId: u.tenant_id, username: u.username, email: u.email, displayName: u.display_name, role: u.role, status: u.status, createdAt: new Date(Number(u.created_at)).toISOString(), updatedAt: new Date(Number(u.updated_at)).toISOString() })

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
