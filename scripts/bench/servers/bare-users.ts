// What the two bare bearer baselines (bare-auth.ts, bare-auth-native.ts) share, so both do
// exactly the same work with different drivers: the key, the SQL and the user's JSON view.
export const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(process.env.JWT_SECRET!), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
export const SQL = 'select u.*, t.status as tenant_status from users u left join tenants t on t.id = u.tenant_id where u.id = ?'
export const LIST = 'select * from users where scope = ? and status = ? order by created_at, id limit ? offset ?'
export const COUNT = 'select count(*) as n from users where scope = ? and status = ?'
export const view = (u: Record<string, unknown>) => ({ id: u.id, tenantId: u.tenant_id, username: u.username, email: u.email, displayName: u.display_name, role: u.role, status: u.status, createdAt: new Date(Number(u.created_at)).toISOString(), updatedAt: new Date(Number(u.updated_at)).toISOString() })
