/**
 * The write gate: one transaction at a time per process (see client.ts for why, in each
 * of the three shapes). A transaction holds the gate until it commits or rolls back;
 * statements outside it wait for it on a local file and run straight through on a server.
 */
import type { Client, Transaction, TransactionMode } from '@libsql/client'
import { connectionOf, NATIVE_TX, PROBE_SQL } from './statement-cache'

export class Gate {
  private held = false
  private waiters: Array<() => void> = []
  get open() {
    return !this.held
  }
  async acquire(): Promise<void> {
    if (!this.held) {
      this.held = true
      return
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }
  release() {
    const next = this.waiters.shift()
    if (next) next()
    else this.held = false
  }
  /** Resolves when no transaction holds the gate (without taking it). */
  async idle(): Promise<void> {
    while (this.held) {
      await new Promise<void>((resolve) => this.waiters.push(() => { resolve(); this.release() }))
    }
  }
}

/** What a native connection tells of itself (libsql's Database). */
interface NativeState {
  open: boolean
  inTransaction: boolean
}

/**
 * Wraps a libSQL client so that statements never overlap an open transaction of this process.
 * `native` (a local file or memory, whose client has one connection): a transaction also
 * answers its own native connection under NATIVE_TX (src/db/native-tx.ts). The connection found
 * by a probe is kept for the next transactions while it is open and in a transaction (the gate's
 * one transaction, on the client's one connection); a connection the client replaced is closed,
 * and the next transaction probes again.
 */
export function gated(inner: Client, gate: Gate, statementsWait: boolean, native = false): Client {
  let known: NativeState | undefined
  const nativeOf = (tx: Transaction): object | undefined => {
    if (!known?.open || !known.inTransaction) known = connectionOf(() => tx.execute(PROBE_SQL)) as NativeState | undefined
    return known
  }
  const wrapTx = (tx: Transaction): Transaction => {
    let connection: object | undefined
    let released = false
    const done = () => {
      if (!released) {
        released = true
        gate.release()
      }
    }
    return new Proxy(tx, {
      get(target, prop, receiver) {
        if (prop === 'commit' || prop === 'rollback') {
          return async () => {
            try {
              return await (target[prop] as () => Promise<void>).call(target)
            } finally {
              done()
            }
          }
        }
        if (prop === NATIVE_TX) {
          if (!native || released) return undefined
          return (connection ??= nativeOf(target))
        }
        if (prop === 'close') {
          return () => {
            try {
              target.close()
            } finally {
              done()
            }
          }
        }
        const v = Reflect.get(target, prop, receiver)
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
  }
  return new Proxy(inner, {
    get(target, prop, receiver) {
      switch (prop) {
        case 'execute':
        case 'batch':
        case 'migrate':
        case 'executeMultiple':
          return (...args: unknown[]) => {
            const fn = (target as any)[prop] as (...a: unknown[]) => Promise<unknown>
            if (gate.open || !statementsWait) return fn.apply(target, args)
            return gate.idle().then(() => fn.apply(target, args))
          }
        case 'transaction':
          return async (mode?: TransactionMode) => {
            await gate.acquire()
            try {
              return wrapTx(await target.transaction(mode))
            } catch (e) {
              gate.release()
              throw e
            }
          }
        default: {
          const v = Reflect.get(target, prop, receiver)
          return typeof v === 'function' ? v.bind(target) : v
        }
      }
    },
  })
}
