/**
 * Which of this process's writes a read on the embedded replica must wait for (replica.ts,
 * `beforeRead`): only the writes to the tables it reads. Every write of the process gets the
 * next number; the ledger keeps, per table, the number of the last write to it. A read of
 * tables T needs a pull begun after the last write to any of T. So the credential check of
 * every request (users, tenants) does not wait for a pull after this process created a wallet,
 * while a read of the wallets does.
 *
 * A write changes more than its own table when a foreign key cascades from it or a trigger
 * runs on it: both are read from the schema at start (`learn`), and such a write counts for
 * the tables it may reach (for a trigger, the tables its body writes). SQL the ledger cannot read (no table
 * found) counts as touching every table: the read waits for every write, as before.
 */
import type { Client, InStatement, Transaction, TransactionMode } from '@libsql/client'

const text = (s: InStatement) => (typeof s === 'string' ? s : s.sql)
const WRITTEN = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+["`[]?(\w+)/i
const READ = /\b(?:from|join)\s+["`[]?(\w+)/gi

export class WriteLedger {
  /** writes of this process so far */
  seq = 0
  private lastTo = new Map<string, number>()
  /** the last write whose tables are not known: every read waits for it */
  private lastAny = 0
  /** per table, the tables a write to it may change too (cascades, its triggers' writes); '*' for every table */
  private reaches = new Map<string, string[]>()

  /** A write of these statements finished on the primary (a transaction's, or one statement's). */
  written(stmts: InStatement[]) {
    const n = ++this.seq
    for (const s of stmts) {
      const table = WRITTEN.exec(text(s))?.[1]?.toLowerCase()
      if (!table) {
        // BEGIN, COMMIT, SAVEPOINT and the like write nothing themselves; anything else unknown counts for every table
        if (!/^\s*(begin|commit|end|rollback|savepoint|release|select|pragma)\b/i.test(text(s))) this.lastAny = n
        continue
      }
      this.lastTo.set(table, n)
      for (const t of this.reaches.get(table) ?? []) {
        if (t === '*') this.lastAny = n
        else this.lastTo.set(t, n)
      }
    }
  }

  /** A write of unknown statements (a migration, a script): every read waits for it. */
  writtenAny() {
    this.lastAny = ++this.seq
  }

  /** The number of the last write of this process this read must see. */
  needs(stmt: InStatement): number {
    let need = this.lastAny
    let found = false
    for (const m of text(stmt).matchAll(READ)) {
      found = true
      need = Math.max(need, this.lastTo.get(m[1]!.toLowerCase()) ?? 0)
    }
    return found ? need : this.seq
  }

  /** Reads the foreign keys that cascade and the tables with triggers from the replica's schema; on failure every write counts for every table. */
  async learn(replica: Client) {
    try {
      const fks = await replica.execute(`select m.name as child, p."table" as parent, p.on_delete as del, p.on_update as upd
        from sqlite_master m join pragma_foreign_key_list(m.name) p where m.type = 'table'`)
      const reaches = new Map<string, string[]>()
      for (const r of fks.rows) {
        if (![r.del, r.upd].some((a) => /cascade|set null|set default/i.test(String(a)))) continue
        const parent = String(r.parent).toLowerCase()
        reaches.set(parent, [...(reaches.get(parent) ?? []), String(r.child).toLowerCase()])
      }
      // a cascade may cascade further: follow it to the end
      for (const [parent, children] of reaches) {
        const all = new Set(children)
        for (const c of all) for (const g of reaches.get(c) ?? []) all.add(g)
        reaches.set(parent, [...all])
      }
      // a trigger reaches the tables its body writes (every table when none is found in it), and what those reach in turn
      const triggers = await replica.execute("select tbl_name as t, sql from sqlite_master where type = 'trigger'")
      for (const r of triggers.rows) {
        const t = String(r.t).toLowerCase()
        const body = /\bbegin\b([\s\S]*)/i.exec(String(r.sql ?? ''))?.[1] ?? ''
        const written = [...body.matchAll(new RegExp(`\\b${WRITTEN.source.slice(4)}`, 'gi'))].map((m) => m[1]!.toLowerCase())
        reaches.set(t, [...new Set([...(reaches.get(t) ?? []), ...(written.length ? written : ['*'])])])
      }
      for (const [from, to] of reaches) {
        const all = new Set(to)
        for (const c of all) for (const g of reaches.get(c) ?? []) all.add(g)
        reaches.set(from, [...all])
      }
      this.reaches = reaches
    } catch {
      this.reaches = new Proxy(new Map<string, string[]>(), { get: (m, p) => (p === 'get' ? () => ['*'] : Reflect.get(m, p)) })
    }
  }
}

/**
 * A server's client (topology b) whose finished writes are numbered in `ledger`, as an embedded
 * replica's are: statements outside a transaction when they return, a transaction's when it
 * commits. What reads it serves from memory (callers.ts) asks the ledger whether this process
 * wrote their tables since.
 */
/** A transaction whose statements are collected and handed to `onCommit` with its commit: counted as one write once it commits. */
export function recordedTransaction(tx: Transaction, onCommit: (committed: Promise<void>, stmts: InStatement[]) => Promise<void>): Transaction {
  const stmts: InStatement[] = []
  return new Proxy(tx, {
    get(target, prop, receiver) {
      if (prop === 'execute') return (s: InStatement) => { stmts.push(s); return target.execute(s) }
      if (prop === 'batch') return (ss: InStatement[]) => { stmts.push(...ss); return target.batch(ss) }
      if (prop === 'executeMultiple') return (sqlText: string) => { stmts.push('-- unknown'); return target.executeMultiple(sqlText) }
      if (prop === 'commit') return () => onCommit(target.commit(), stmts)
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}

export function ledgered(client: Client, ledger: WriteLedger): Client {
  const isRead = (s: InStatement) => /^\s*select\b/i.test(text(s))
  const after = async <T>(p: Promise<T>, stmts: InStatement[] | null): Promise<T> => {
    const out = await p
    if (stmts) ledger.written(stmts)
    else ledger.writtenAny()
    return out
  }
  const recorded = (tx: Transaction) => recordedTransaction(tx, (committed, stmts) => after(committed, stmts))
  return new Proxy(client, {
    get(target, prop, receiver) {
      switch (prop) {
        case 'execute':
          return (stmt: InStatement, args?: unknown) => {
            const s = args === undefined ? stmt : { sql: text(stmt), args } as InStatement
            return isRead(s) ? target.execute(s) : after(target.execute(s), [s])
          }
        case 'batch':
          return (stmts: InStatement[], mode?: TransactionMode) => (stmts.every(isRead) ? target.batch(stmts, mode) : after(target.batch(stmts, mode), stmts))
        case 'migrate':
          return (stmts: InStatement[]) => after(target.migrate(stmts), null)
        case 'executeMultiple':
          return (sqlText: string) => after(target.executeMultiple(sqlText), null)
        case 'transaction':
          return async (mode?: TransactionMode) => recorded(await target.transaction(mode))
        default: {
          const v = Reflect.get(target, prop, receiver)
          return typeof v === 'function' ? v.bind(target) : v
        }
      }
    },
  })
}
