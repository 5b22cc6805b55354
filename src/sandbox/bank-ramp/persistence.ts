/**
 * Keeping the simulator's state across restarts. The in-memory stores (state.ts) stay the
 * working set every request reads; a simulator given a `SimulatorPersistence` also mirrors
 * them into it:
 *
 * - **Load**: before the first request is served, every live record is read back into the
 *   stores, in the order it was stored (so the per-account bounds evict the same entries).
 *   A record whose account is not the one its value names is not loaded (and is deleted), so
 *   one account's records are never served from another's.
 * - **Save**: each store tells the mirror which entries were stored, changed in place
 *   (`touch`), deleted, evicted or expired; the mirror writes them in one write transaction
 *   before a request's answer leaves (app.ts) and before a webhook reports a change
 *   (context.ts `post`). Saves run one after another, in the order they were asked for, each
 *   with the values as they are when it is asked, so a later save never goes back in time.
 *   A failed save keeps its changes for the next one.
 * - **Resets**: `slipway sandbox reset-user` deletes a customer's records in the database
 *   and logs the reset. The mirror reads the log before each request and inside each save, and
 *   forgets that customer's entries in memory, so a running simulator neither serves them
 *   again nor writes them back.
 * - **IBANs**: numbers come from a counter kept by the persistence, never the same twice.
 *
 * Without a persistence (a standalone simulator in tests, the chaos script) nothing is saved
 * and a restart forgets everything.
 */
import type { AccountStore, Entry } from './store'
import { STORE_KINDS, type SimulatorState, type StoreKind } from './state'

/** One entry of a store as saved: `id` is its key in the store, `body` its value as JSON. */
export interface SavedRecord {
  kind: StoreKind
  id: string
  accountId: string
  /** the partner customer (CustomerID) the record belongs to, so a reset finds it; null when none */
  customerId: string | null
  body: string
  expiresAt: number
}

export type RecordChange = SavedRecord | { kind: StoreKind; id: string; deleted: true }

export interface CustomerReset { seq: number; accountId: string; customerId: string }

export interface SimulatorPersistence {
  /** every live record, oldest first, and the newest reset in the log */
  load(): Promise<{ records: SavedRecord[]; resetSeq: number }>
  /**
   * Saves the changes in one write transaction. Records of a customer reset after `resetSeq`
   * are not written (the reset forgot them); those resets are answered, so the simulator
   * forgets the customer too.
   */
  save(changes: RecordChange[], resetSeq: number): Promise<CustomerReset[]>
  /** resets logged after `seq` */
  resetsSince(seq: number): Promise<CustomerReset[]>
  /** the next virtual IBAN number, never given twice */
  nextIbanNumber(): Promise<number>
}

type AnyStore = AccountStore<unknown>
interface Pending { kind: StoreKind; key: string; entry?: Entry<unknown> }

const stores = (state: SimulatorState) => STORE_KINDS.map((kind) => [kind, state[kind] as AnyStore] as const)

/** The partner customer an entry belongs to, read from the entry or from the record it counts for. */
export function customerOf(state: SimulatorState, kind: StoreKind, key: string, value: unknown): string | null {
  const v = value as Record<string, unknown>
  switch (kind) {
    case 'customers':
      return v.id as string
    case 'deposits':
    case 'txs':
      return (v.CustomerID as string | undefined) ?? null
    case 'versions': {
      // keyed `<account>:<record id>`: a customer's (same key as the customer), a deposit's or a transaction's
      const recordId = key.slice(key.indexOf(':') + 1)
      return state.customers.get(key)?.id ?? state.deposits.get(recordId)?.CustomerID ?? state.txs.get(recordId)?.CustomerID ?? null
    }
    case 'sells':
      return state.txs.get(value as string)?.CustomerID ?? null
    default:
      return (v.customerId as string | undefined) ?? null
  }
}

export function mirrorState(state: SimulatorState, persistence: SimulatorPersistence | undefined) {
  /** changes not saved yet, the last one per entry */
  const pending = new Map<string, Pending>()
  const slot = (kind: StoreKind, key: string) => `${kind}\u0000${key}`
  let resetSeq = 0
  let memoryIban = 0
  let saving: Promise<unknown> = Promise.resolve()
  let loading: Promise<void> | undefined

  if (persistence) {
    for (const [kind, store] of stores(state)) {
      store.observer = {
        stored: (key, entry) => void pending.set(slot(kind, key), { kind, key, entry }),
        removed: (key) => void pending.set(slot(kind, key), { kind, key }),
      }
    }
  }

  function toChange(p: Pending): RecordChange {
    if (!p.entry) return { kind: p.kind, id: p.key, deleted: true }
    const { value, accountId, expiresAt } = p.entry
    return { kind: p.kind, id: p.key, accountId, customerId: customerOf(state, p.kind, p.key, value), body: JSON.stringify(value), expiresAt }
  }

  function applyResets(resets: CustomerReset[]) {
    for (const r of resets) {
      if (r.seq <= resetSeq) continue
      resetSeq = r.seq
      // every store's entries of the customer first: versions and sells find theirs through deposits and transactions
      const doomed = stores(state).map(([kind, store]) => [kind, store, [...store.entriesOf(r.accountId)]
        .filter(([key, value]) => customerOf(state, kind, key, value) === r.customerId).map(([key]) => key)] as const)
      for (const [kind, store, keys] of doomed) {
        for (const key of keys) {
          store.forget(key)
          pending.delete(slot(kind, key))
        }
      }
    }
  }

  async function load() {
    const { records, resetSeq: seq } = await persistence!.load()
    for (const r of records) {
      const store = STORE_KINDS.includes(r.kind) ? (state[r.kind] as AnyStore) : undefined
      let value: unknown
      try {
        value = JSON.parse(r.body)
      } catch {
        value = undefined
      }
      if (!store || value === undefined || !store.restore(r.id, value, r.accountId, r.expiresAt)) {
        // expired, unreadable, or naming another account than the one it was saved under: not served, and deleted
        if (store) pending.set(slot(r.kind, r.id), { kind: r.kind, key: r.id })
      }
    }
    resetSeq = seq
    await flush()
  }

  /** Saves what changed since the last save; resolves once it is in the database. */
  async function flush(): Promise<void> {
    if (!persistence || !pending.size) return
    const batch = [...pending.values()]
    pending.clear()
    const changes = batch.map(toChange)
    const run = saving.catch(() => {}).then(() => persistence.save(changes, resetSeq)).then(applyResets)
    saving = run
    try {
      await run
    } catch (err) {
      // kept for the next save, unless a newer change of the same entry came meanwhile
      for (const p of batch) if (!pending.has(slot(p.kind, p.key))) pending.set(slot(p.kind, p.key), p)
      throw err
    }
  }

  return {
    /** loads the saved state once, before the first request; a failed load is tried again by the next request */
    ready(): Promise<void> {
      if (!persistence) return Promise.resolve()
      loading ??= load().catch((err) => {
        loading = undefined
        throw err
      })
      return loading
    },
    /** forgets the customers reset since the last look (one read per request) */
    async catchUp() {
      if (persistence) applyResets(await persistence.resetsSince(resetSeq))
    },
    flush,
    nextIbanNumber: (): Promise<number> => (persistence ? persistence.nextIbanNumber() : Promise.resolve(++memoryIban)),
  }
}

export type StateMirror = ReturnType<typeof mirrorState>
