/**
 * A map whose entries expire and are bounded per simulator account, so the simulator's
 * memory stays bounded however long it runs and however many requests a tenant sends
 * (64,000 quotes once grew the process by 70 MB: prepared sells were dropped only by a sell).
 *
 * - Each entry expires: at its own deadline plus a grace period when it has one (a form
 *   session, an onboarding link: the grace keeps "expired" answers meaningful for a while
 *   before the entry is forgotten), otherwise `ttlMs` after it was stored.
 * - Each account holds at most `perAccount` entries: storing one more evicts that account's
 *   oldest. Eviction rather than refusal, because a refusal would leave a tenant's sandbox
 *   unusable for good (its state is kept across restarts when the simulator has a persistence).
 * - Expired entries are dropped when read, from the oldest end of an account's entries on
 *   each write, and across all accounts at most once a minute.
 * - An `observer` hears of every entry stored (`set`, and `touch` after a value was changed in
 *   place) and every entry dropped (deleted, evicted or expired), so a persistence can mirror
 *   the store (persistence.ts). `restore` and `forget` do not tell it: they mirror what the
 *   database already holds.
 *
 * Map-shaped (`get`, `set`, `has`, `delete`, `values`) so route code reads as it did over a Map.
 */
export interface StoreLimits {
  perAccount: number
  /** lifetime of an entry without a deadline of its own */
  ttlMs: number
  /** kept this long after an entry's own deadline */
  graceMs?: number
}

export interface Entry<V> { value: V; accountId: string; expiresAt: number }

export interface StoreObserver<V> {
  stored(key: string, entry: Entry<V>): void
  removed(key: string, entry: Entry<V>): void
}

const SWEEP_EVERY_MS = 60_000

export class AccountStore<V> {
  private readonly entries = new Map<string, Entry<V>>()
  /** each account's keys, oldest first (a Map keeps insertion order) */
  private readonly byAccount = new Map<string, Set<string>>()
  private lastSweep: number
  observer?: StoreObserver<V>

  constructor(
    private readonly limits: StoreLimits,
    private readonly now: () => number,
    private readonly accountOf: (key: string, value: V) => string,
    private readonly deadlineOf?: (value: V) => number,
  ) {
    this.lastSweep = now()
  }

  get size() {
    return this.entries.size
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key)
    if (!e) return undefined
    if (e.expiresAt <= this.now()) {
      this.remove(key, e)
      return undefined
    }
    return e.value
  }

  has(key: string) {
    return this.get(key) !== undefined
  }

  set(key: string, value: V): this {
    const at = this.now()
    const old = this.entries.get(key)
    if (old) this.remove(key, old, true)
    const accountId = this.accountOf(key, value)
    let keys = this.byAccount.get(accountId)
    if (!keys) this.byAccount.set(accountId, (keys = new Set()))
    this.dropExpired(keys, at)
    this.makeRoom(keys)
    const expiresAt = this.deadlineOf ? this.deadlineOf(value) + (this.limits.graceMs ?? 0) : at + this.limits.ttlMs
    const entry = { value, accountId, expiresAt }
    this.entries.set(key, entry)
    keys.add(key)
    this.observer?.stored(key, entry)
    if (at - this.lastSweep >= SWEEP_EVERY_MS) this.sweep()
    return this
  }

  /** Tells the observer that a live entry's value was changed in place (its deadline and place stay). */
  touch(key: string) {
    const e = this.entries.get(key)
    if (e && e.expiresAt > this.now()) this.observer?.stored(key, e)
  }

  /**
   * Puts back an entry read from a persistence, with the deadline it was stored with; call in
   * the order the entries were stored. False (and nothing kept) when it has expired or its
   * account is not the one its value names. The bound still applies: the oldest entries of an
   * account over `perAccount` are evicted, and the observer told.
   */
  restore(key: string, value: V, accountId: string, expiresAt: number): boolean {
    if (expiresAt <= this.now() || this.accountOf(key, value) !== accountId) return false
    let keys = this.byAccount.get(accountId)
    if (!keys) this.byAccount.set(accountId, (keys = new Set()))
    const old = this.entries.get(key)
    if (old) this.remove(key, old, true)
    this.makeRoom(keys)
    this.entries.set(key, { value, accountId, expiresAt })
    keys.add(key)
    return true
  }

  /** Drops an entry without telling the observer (its stored copy is already gone). */
  forget(key: string) {
    const e = this.entries.get(key)
    if (e) this.remove(key, e, true)
  }

  delete(key: string): boolean {
    const e = this.entries.get(key)
    if (!e) return false
    this.remove(key, e)
    return true
  }

  /** live values of every account */
  *values(): IterableIterator<V> {
    const at = this.now()
    for (const e of this.entries.values()) if (e.expiresAt > at) yield e.value
  }

  /** live entries of one account, oldest first */
  *entriesOf(accountId: string): IterableIterator<[string, V]> {
    const at = this.now()
    for (const key of this.byAccount.get(accountId) ?? []) {
      const e = this.entries.get(key)!
      if (e.expiresAt > at) yield [key, e.value]
    }
  }

  /** live values of one account, oldest first */
  *valuesOf(accountId: string): IterableIterator<V> {
    for (const [, v] of this.entriesOf(accountId)) yield v
  }

  /** drops every expired entry */
  sweep() {
    const at = this.now()
    this.lastSweep = at
    for (const [accountId, keys] of this.byAccount) {
      this.dropExpired(keys, at)
      if (!keys.size) this.byAccount.delete(accountId)
    }
  }

  /**
   * Drops expired entries from the oldest end of one account's keys. Deadlines grow with
   * insertion order for every kind of entry the simulator keeps (a fixed lifetime from
   * creation), so the first live entry ends the scan.
   */
  private dropExpired(keys: Set<string>, at: number) {
    for (const key of keys) {
      const e = this.entries.get(key)!
      if (e.expiresAt > at) return
      this.remove(key, e)
    }
  }

  private makeRoom(keys: Set<string>) {
    while (keys.size >= this.limits.perAccount) {
      const oldest = keys.values().next().value as string
      this.remove(oldest, this.entries.get(oldest)!)
    }
  }

  private remove(key: string, e: Entry<V>, quiet = false) {
    this.entries.delete(key)
    // an account's emptied key set is dropped by the next sweep, not here: set() holds it
    this.byAccount.get(e.accountId)?.delete(key)
    if (!quiet) this.observer?.removed(key, e)
  }
}
