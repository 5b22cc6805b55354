// Baseline for scripts/bench/agent-payments.ts: bare Bun.serve doing, per request, one write
// transaction on a libSQL file database (BEGIN IMMEDIATE, one INSERT of a row shaped like an
// execution, COMMIT) and answering the row's id. The database settings are Slipway's for a
// local file (src/db/client.ts): one connection, WAL, synchronous NORMAL, busy_timeout 5000,
// and writers queued in process (Slipway's gate; libSQL's single connection refuses a second
// open transaction instead of waiting for it).
import { createClient, type Transaction } from '@libsql/client'

const url = process.env.BARE_INSERT_DB_URL
if (!url?.startsWith('file:')) throw new Error('BARE_INSERT_DB_URL must be a file: URL')
const db = createClient({ url, concurrency: 1 })
await db.execute('PRAGMA busy_timeout = 5000')
await db.execute('PRAGMA journal_mode = WAL')
await db.execute('PRAGMA synchronous = NORMAL')
await db.execute(`CREATE TABLE IF NOT EXISTS rows (
  id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, agent_id TEXT NOT NULL, amount TEXT NOT NULL,
  status TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)`)

let queue: Promise<unknown> = Promise.resolve()
/** Runs `fn` in a write transaction once the previous one has settled. */
function write<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
  const run = queue.then(async () => {
    const tx = await db.transaction('write')
    try {
      const out = await fn(tx)
      await tx.commit()
      return out
    } catch (err) {
      await tx.rollback().catch(() => {})
      throw err
    } finally {
      tx.close()
    }
  })
  queue = run.catch(() => {})
  return run
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  async fetch(req) {
    if (req.method !== 'POST') return Response.json({ status: 'ok' })
    const body = await req.text()
    const id = crypto.randomUUID()
    await write((tx) => tx.execute({
      sql: 'INSERT INTO rows (id, tenant_id, agent_id, amount, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      args: [id, 'tenant', 'agent', '1', 'requires_approval', body, Date.now()],
    }))
    return Response.json({ id }, { status: 201 })
  },
})
console.log(`ready ${server.port}`)
