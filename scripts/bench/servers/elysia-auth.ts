// Reference: the bare handler's work (jose check, one libSQL row read) inside a bare Elysia route.
import { Elysia } from 'elysia'
import { createClient } from '@libsql/client'
import { jwtVerify } from 'jose'

// the HMAC key imported once (jose imports a raw key on every verify otherwise)
const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(process.env.JWT_SECRET!), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
const db = createClient({ url: process.env.DATABASE_URL!, concurrency: 1 })
const SQL = 'select u.*, t.status as tenant_status from users u left join tenants t on t.id = u.tenant_id where u.id = ?'
const app = new Elysia().get('/v1/users/:id', async ({ request }) => {
  const auth = request.headers.get('authorization')
  const { payload } = await jwtVerify(auth!.slice(7), key, { algorithms: ['HS256'] })
  const { rows } = await db.execute({ sql: SQL, args: [payload.sub as string] })
  const u = rows[0]!
  return { id: u.id, tenantId: u.tenant_id, username: u.username, email: u.email, displayName: u.display_name, role: u.role, status: u.status, createdAt: new Date(Number(u.created_at)).toISOString(), updatedAt: new Date(Number(u.updated_at)).toISOString() }
}).get('/health', () => 'ok')
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: (r) => app.fetch(r) })
console.log(`ready ${server.port}`)
