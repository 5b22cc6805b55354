// What the bare bearer baselines share, so they do the same work with different drivers: the SQL
// and the user's JSON view, and for the two that verify with jose (bare-auth.ts, elysia-auth.ts)
// the HMAC key imported once (jose imports a raw key on every verify otherwise).
export const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(process.env.JWT_SECRET!), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
export const SQL = 'select u.*, t.status as tenant_status from users u left join tenants t on t.id = u.tenant_id where u.id = ?'
export const LIST = 'select * from users where scope = ? and status = ? order by created_at, id limit ? offset ?'
export const COUNT = 'select count(*) as n from users where scope = ? and status = ?'
export const view = (u: Record<string, unknown>) => ({ id: u.id, tenantId: u.tenant_id, username: u.username, email: u.email, displayName: u.display_name, role: u.role, status: u.status, createdAt: new Date(Number(u.created_at)).toISOString(), updatedAt: new Date(Number(u.updated_at)).toISOString() })

type Row = Record<string, unknown>
type Maybe<T> = T | Promise<T>

/**
 * The bare server both bare-handler baselines run, so they differ only in how they check the
 * token and reach the rows: the bearer check, the profile read, and at `/list` the operator's
 * page of 100 users of the tenant with the total, as GET /v1/users/?limit=100.
 */
export function serveUsers(work: { sub(token: string): Maybe<string | null>; user(id: string): Maybe<Row | undefined>; page(tenantId: string): Maybe<{ rows: Row[]; total: number }> }) {
  const denied = () => Response.json({ message: 'Authentication required' }, { status: 401 })
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.PORT),
    async fetch(req) {
      const auth = req.headers.get('authorization')
      if (!auth?.startsWith('Bearer ')) return denied()
      try {
        const sub = await work.sub(auth.slice(7))
        if (!sub) return denied()
        const u = await work.user(sub)
        if (!u || u.status !== 'active') return denied()
        if (new URL(req.url).pathname === '/list') {
          const { rows, total } = await work.page(String(u.tenant_id))
          return Response.json({ data: rows.map(view), pagination: { total, limit: 100, offset: 0, hasMore: rows.length < total } })
        }
        return Response.json(view(u))
      } catch {
        return denied()
      }
    },
  })
  console.log(`ready ${server.port}`)
}
