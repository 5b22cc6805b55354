// The floor: the bare handler's work at its fastest: the token's HMAC checked inline with
// node:crypto (as Slipway does; jose's WebCrypto HMAC runs on Bun's native pool), and libSQL's
// native driver called synchronously with statements prepared once (no @libsql/client, no
// drizzle). Slipway's distance to it is what its framework, query builder and async client cost.
import { createHmac, timingSafeEqual } from 'node:crypto'
import Database from 'libsql'
import { COUNT, LIST, SQL, view } from './bare-users'

const secret = new TextEncoder().encode(process.env.JWT_SECRET!)
/** The token's claims when its HS256 signature is right and it has not expired; else null. */
function verify(token: string): { sub?: unknown } | null {
  const [header, payload, signature] = token.split('.')
  if (!header || !payload || !signature) return null
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest()
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'HS256') return null
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
  return typeof claims.exp === 'number' && claims.exp > Date.now() / 1000 ? claims : null
}

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
      const payload = verify(auth.slice(7))
      if (!payload) return Response.json({ message: 'Authentication required' }, { status: 401 })
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
