// The floor: the bare handler's work with each library at its fastest: the key imported once, and
// libSQL's native driver called synchronously with statements prepared once (no @libsql/client, no
// drizzle). Slipway's distance to it is what its framework, query builder and async client cost.
import Database from 'libsql'
import { jwtVerify } from 'jose'
// the HMAC key imported once (jose imports a raw key on every verify otherwise), as Slipway does
import { COUNT, key, LIST, SQL, view } from './bare-users'

const db = new Database(process.env.DATABASE_URL!.replace(/^file:/, ''))
const one = db.prepare(SQL)
const list = db.prepare(LIST)
const count = db.prepare(COUNT)

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  async fetch(req) {
    const auth = req.headers.get('authorization')
    if (!auth?.startsWith('Bearer ')) return Response.json({ message: 'Authentication required' }, { status: 401 })
    try {
      const { payload } = await jwtVerify(auth.slice(7), key, { algorithms: ['HS256'] })
      const u = one.get(payload.sub) as Record<string, unknown> | undefined
      if (!u || u.status !== 'active') return Response.json({ message: 'Authentication required' }, { status: 401 })
      if (new URL(req.url).pathname === '/list') {
        // the operator's list: 100 users of the tenant and the total, as GET /v1/users/?limit=100
        const rows = list.all(String(u.tenant_id), 'active', 100, 0) as Array<Record<string, unknown>>
        const total = Number((count.get(String(u.tenant_id), 'active') as { n: number }).n)
        return Response.json({ data: rows.map(view), pagination: { total, limit: 100, offset: 0, hasMore: rows.length < total } })
      }
      return Response.json(view(u))
    } catch {
      return Response.json({ message: 'Authentication required' }, { status: 401 })
    }
  },
})
console.log(`ready ${server.port}`)
