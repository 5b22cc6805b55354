// What the bare bearer baselines share, so they do the same work with different drivers: the SQL
// and the user's JSON view, and for the two that verify with jose (bare-auth.ts, elysia-auth.ts)
// the HMAC key imported once (jose imports a raw key on every verify otherwise).
export const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(process.env.JWT_SECRET!), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
export const SQL = 'select u.*, t.status as tenant_status from users u left join tenants t on t.id = u.tenant_id where u.id = ?'
export const LIST = 'select * from users where scope = ? and status = ? order by created_at, id limit ? offset ?'
export const COUNT = 'select count(*) as n from users where scope = ? and status = ?'
export const view = (u: Record<string, unknown>) => ({ id: u.id, tenantId: u.tenant_id, username: u.username, email: u.email, displayName: u.display_name, role: u.role, status: u.status, createdAt: new Date(Number(u.created_at)).toISOString(), updatedAt: new Date(Number(u.updated_at)).toISOString() })
