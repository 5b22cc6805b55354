// Baseline: bare Bun.serve doing the profile route's work outside the framework:
// verify the HS256 bearer token with jose and read the user's row (joined with its tenant) from libSQL.
import { createClient } from '@libsql/client'
import { jwtVerify } from 'jose'

const key = new TextEncoder().encode(process.env.JWT_SECRET!)
const db = createClient({ url: process.env.DATABASE_URL!, concurrency: 1 })
const SQL = 'select u.*, t.status as tenant_status from users u left join tenants t on t.id = u.tenant_id where u.id = ?'

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
      return Response.json({ id: u.id, tenantId: u.tenant_id, username: u.username, email: u.email, displayName: u.display_name, role: u.role, status: u.status, createdAt: new Date(Number(u.created_at)).toISOString(), updatedAt: new Date(Number(u.updated_at)).toISOString() })
    } catch {
      return Response.json({ message: 'Authentication required' }, { status: 401 })
    }
  },
})
console.log(`ready ${server.port}`)
