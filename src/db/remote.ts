/**
 * A libSQL server (the primary): every call gets a deadline and a server that cannot be
 * reached answers DatabaseUnavailableError; migrations that race other processes starting
 * on the same fresh primary.
 */
import type { Client, Transaction, TransactionMode } from '@libsql/client'
import { DatabaseUnavailableError, isUnreachable } from './errors'

/** Rejects after `ms` (the call itself may still finish; its result is dropped). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(what()), ms) })]).finally(() => clearTimeout(timer))
}

/**
 * Every call to the server gets a deadline, and a server that cannot be reached turns
 * into DatabaseUnavailableError. `onReach` tells the replica tracker whether it answered.
 */
export function guarded(inner: Client, timeoutMs: number, unavailable: string, onReach: (ok: boolean) => void): Client {
  const fail = () => new DatabaseUnavailableError(unavailable)
  // `network: false` for calls the client can complete without the server (opening a
  // transaction sends nothing until its first statement; a rollback of a stream that is gone
  // answers at once): their success says nothing about the primary, so only execute, batch,
  // commit and the like count as having reached it (/health/ready's primaryReachable).
  const call = async <T>(p: () => Promise<T>, network = true): Promise<T> => {
    try {
      const out = await withTimeout(p(), timeoutMs, () => Object.assign(new Error(`no answer from the database server within ${timeoutMs} ms`), { name: 'TimeoutError' }))
      if (network) onReach(true)
      return out
    } catch (err) {
      if (isUnreachable(err)) {
        onReach(false)
        throw fail()
      }
      throw err
    }
  }
  const wrapTx = (tx: Transaction): Transaction => new Proxy(tx, {
    get(target, prop, receiver) {
      if (prop === 'execute' || prop === 'batch' || prop === 'executeMultiple' || prop === 'commit') {
        return (...args: unknown[]) => call(() => (target as any)[prop](...args))
      }
      if (prop === 'rollback') {
        // A transaction on a server that went away is gone with its stream: nothing to undo.
        return () => call(() => target.rollback(), false).catch((err) => {
          if (!(err instanceof DatabaseUnavailableError)) throw err
        })
      }
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'execute' || prop === 'batch' || prop === 'migrate' || prop === 'executeMultiple') {
        return (...args: unknown[]) => call(() => (target as any)[prop](...args))
      }
      if (prop === 'transaction') return async (mode?: TransactionMode) => wrapTx(await call(() => target.transaction(mode), false))
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}

/**
 * Migrations against a server: several processes may start at once on a fresh primary.
 * Each migrator applies its pending set in one batch (a transaction), so a process
 * that lost the race finds its batch refused (the tables exist, or the server's write
 * lock is held) and, asked again, finds nothing left to apply. It waits and asks again
 * instead of failing, within a bound.
 */
export async function migrateRacing(migrate: () => Promise<void>, boundMs = 30_000) {
  const deadline = Date.now() + boundMs
  for (;;) {
    try {
      return await migrate()
    } catch (err) {
      const cause = (err as { cause?: unknown })?.cause
      if (cause instanceof DatabaseUnavailableError) throw cause
      const text = `${(err as Error)?.message ?? ''} ${((err as { cause?: Error })?.cause)?.message ?? ''}`
      if (Date.now() > deadline || !/already exists|duplicate column|SQLITE_BUSY|database is locked|UNIQUE constraint failed: __drizzle_migrations/i.test(text)) throw err
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100))
    }
  }
}
