// The floor: the bare handler's work at its fastest: the token's HMAC checked inline with
// node:crypto (as Slipway does; jose's WebCrypto HMAC runs on Bun's native pool), and libSQL's
// native driver called synchronously with statements prepared once (no @libsql/client, no
// drizzle). Slipway's distance to it is what its framework, query builder and async client cost.
import { createHmac, timingSafeEqual } from 'node:crypto'
import Database from 'libsql'
import { COUNT, LIST, SQL, serveUsers } from './bare-users'

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

serveUsers({
  sub: (token) => {
    const claims = verify(token)
    return typeof claims?.sub === 'string' ? claims.sub : null
  },
  user: (id) => one.get(id) as Record<string, unknown> | undefined,
  page: (tenantId) => ({
    rows: list.all(tenantId, 'active', 100, 0) as Array<Record<string, unknown>>,
    total: Number((count.get(tenantId, 'active') as { n: number }).n),
  }),
})
