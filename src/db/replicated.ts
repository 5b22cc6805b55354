/**
 * The embedded replica's client (client.ts, `replica`): reads on the replica's file, writes on the primary,
 * each write counted for read-your-writes and for the bound on pulls (replica.ts).
 */
import type { Client, InStatement, ResultSet, Transaction, TransactionMode } from '@libsql/client'
import { DatabaseUnavailableError } from './errors'
import { recordedTransaction } from './read-your-writes'
import type { ReplicaSync } from './replica'

const statementText = (s: InStatement) => (typeof s === 'string' ? s : s.sql)
const isRead = (s: InStatement) => /^\s*select\b/i.test(statementText(s))

/**
 * The embedded replica's client: reads outside a transaction from the local replica (`replica`:
 * a read-only client on its file; after a pull when this process wrote since the last one),
 * everything else on the primary.
 */
export function replicated(replica: Client, primary: Client, sync: ReplicaSync, onClose: () => void = () => {}): Client {
  const afterWrite = async <T>(p: Promise<T>, stmts?: InStatement[]): Promise<T> => {
    const out = await p
    if (stmts) sync.ledger.written(stmts)
    else sync.ledger.writtenAny()
    sync.wrote()
    return out
  }
  // a transaction's statements, counted as one write once it commits
  const recorded = (tx: Transaction) => recordedTransaction(tx, (committed, stmts) => afterWrite(committed, stmts))
  const read = async (stmt: InStatement): Promise<ResultSet> => {
    await sync.beforeRead(stmt)
    const local = await replica.execute(stmt)
    if (local.rows.length || !sync.primaryReachable) return local
    // Not on the replica (yet): created elsewhere since the last pull, or not at all.
    try {
      return await primary.execute(stmt)
    } catch (err) {
      if (err instanceof DatabaseUnavailableError) return local
      throw err
    }
  }
  return new Proxy(primary, {
    get(target, prop, receiver) {
      switch (prop) {
        case 'execute':
          return (stmt: InStatement, args?: unknown) => {
            const s = args === undefined ? stmt : { sql: statementText(stmt), args } as InStatement
            return isRead(s) ? read(s) : afterWrite(primary.execute(s), [s])
          }
        case 'batch':
          return (stmts: InStatement[], mode?: TransactionMode) => (stmts.every(isRead)
            ? Promise.all(stmts.map((s) => sync.beforeRead(s))).then(() => replica.batch(stmts, mode))
            : afterWrite(primary.batch(stmts, mode), stmts))
        case 'migrate':
          return (stmts: InStatement[]) => afterWrite(primary.migrate(stmts))
        case 'executeMultiple':
          return (sqlText: string) => afterWrite(primary.executeMultiple(sqlText))
        // A transaction counts as one write once it has committed, with the tables its statements wrote.
        case 'transaction':
          return async (mode?: TransactionMode) => recorded(await primary.transaction(mode))
        case 'sync':
          return () => sync.syncNow()
        case 'close':
          return () => {
            sync.stop()
            replica.close()
            primary.close()
            onClose()
          }
        default: {
          const v = Reflect.get(target, prop, receiver)
          return typeof v === 'function' ? v.bind(target) : v
        }
      }
    },
  })
}
