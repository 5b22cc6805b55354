/**
 * A local database file: the write-ahead log checkpointed from a timer, and the retry of
 * start-up statements that another process's lock answers SQLITE_BUSY.
 */
import type { Client } from '@libsql/client'

/** A local file's write-ahead log is copied into the database file this often (see checkpointEvery). */
export const CHECKPOINT_INTERVAL_MS = 1000
/** SQLite's own checkpoint, inside a commit, only when the log reaches this many pages (40 MB). */
export const AUTOCHECKPOINT_PAGES = 10_000

/**
 * Checkpoints a local file's write-ahead log from a timer, not from commits. By default
 * SQLite copies the log into the database inside the commit that takes it past 1,000 pages
 * (4 MB), several times a second under writes, and a page written by many transactions
 * (an index's last page, a table's) is copied again each time. Once a second copies each
 * page once per second however often it was written. Measured with registrations (the hash
 * replaced by a timer, so the database work shows): 5% less CPU per registration and 10%
 * more registrations per second; a checkpoint then took about 20 ms for 5,000 pages, once
 * a second, where SQLite's took the same time in smaller pieces, several times a second.
 * The checkpoint is PASSIVE (it never waits for a reader or a writer) and goes through the
 * gate like any statement, between transactions. SQLite's own checkpoint stays as a
 * bound, at AUTOCHECKPOINT_PAGES: should the timer fall behind (writes faster than 40 MB
 * a second, or another process holding a reader on the file), the log stops growing there.
 * A checkpoint that fails (another process checkpointing the same file) is left to the next.
 */
export async function checkpointEvery(raw: Client, gated: Client, intervalMs: number) {
  await raw.execute(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    gated.execute('PRAGMA wal_checkpoint(PASSIVE)').catch(() => {}).finally(() => { running = false })
  }, intervalMs)
  // Deno's timers are numbers, without unref
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}

/** Runs `fn` again while it fails with SQLITE_BUSY, for up to `ms` (start-up only: never inside a request). */
export async function whileBusy<T>(fn: () => Promise<T>, ms: number): Promise<T> {
  const end = Date.now() + ms
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    try {
      return await fn()
    } catch (err) {
      if (!/SQLITE_BUSY/.test(String((err as { code?: string }).code ?? (err as Error).message)) || Date.now() + wait > end) throw err
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
}
