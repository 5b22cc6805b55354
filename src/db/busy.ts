/**
 * sqld's write lock answers SQLITE_BUSY at once, without waiting, to a writer that arrives while
 * its own connection checkpoints the log (`--checkpoint-interval-s`: every 5 s, 15 ms to a few
 * hundred each; docs/operations.md, "Running sqld"). A write batch is one request and wrote nothing
 * then, so it is sent again (client.ts). An interactive transaction takes the lock with its BEGIN
 * (IMMEDIATE, sent with its first statement): refused there, it wrote nothing either, and it is run
 * again from the start while its deadline allows. A transaction's function only reads and writes
 * through its transaction before it commits (the rule of `database.write`), so running it again is
 * the same as running it once; the calls it made before its first statement are JavaScript only.
 */
import type { Client, Transaction, TransactionMode } from '@libsql/client'

/** An error of sqld's write lock. */
export const isBusy = (err: unknown): boolean =>
  /SQLITE_BUSY|database is locked/i.test(`${(err as Error)?.message ?? ''} ${(err as { code?: string })?.code ?? ''}`)
  || (!!(err as { cause?: unknown })?.cause && isBusy((err as { cause: unknown }).cause))

const REFUSED_AT_BEGIN = Symbol('refused at begin')

/** The transaction was refused its write lock at BEGIN: nothing of it ran on the server. */
export const refusedAtBegin = (err: unknown): boolean =>
  !!err && typeof err === 'object' && (REFUSED_AT_BEGIN in err || refusedAtBegin((err as { cause?: unknown }).cause))

/** `client`, whose transactions mark an SQLITE_BUSY on their first statements (the BEGIN's request) as refused at begin. */
export function markingBegin(client: Client): Client {
  const mark = (tx: Transaction): Transaction => {
    let begun = false
    const first = <T>(p: Promise<T>): Promise<T> => p.then((v) => {
      begun = true
      return v
    }, (err: unknown) => {
      if (!begun && isBusy(err) && err && typeof err === 'object') Object.defineProperty(err, REFUSED_AT_BEGIN, { value: true })
      throw err
    })
    return new Proxy(tx, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver)
        if (typeof v !== 'function') return v
        if (prop === 'execute' || prop === 'batch' || prop === 'executeMultiple') {
          return (...args: unknown[]) => (begun ? v.apply(target, args) : first(v.apply(target, args)))
        }
        return v.bind(target)
      },
    })
  }
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'transaction') return async (mode?: TransactionMode) => mark(await target.transaction(mode))
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}
