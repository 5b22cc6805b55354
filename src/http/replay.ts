/**
 * The replay record of accepted tenant signatures (`signature_replays`): each accepted
 * signature is a row for twice the window, so a replay is refused by every API process
 * sharing the database. A signed route records it before its work (`recordSignature`); a
 * route whose work is one write batch records it in that batch (`signatureInWrite`).
 */
import { eq, lt, sql } from 'drizzle-orm'
import type { InStatement, ResultSet } from '@libsql/client'
import type { Deps } from '../deps'
import { uniqueViolation, type Database, type Db, type Executor } from '../db/client'
import { preparedOnce } from '../db/prepared'
import { statementOf } from '../db/batch'
import { insertRowStatement } from '../db/insert-row'
import { nativeGetOnce } from '../db/native-read'
import { signatureReplays } from '../db/schema'
import type { SignatureRecord } from '../context'
import { AppError, UnauthorizedError } from './errors'

export const SIGNATURE_WINDOW_SECONDS = 300

/** Expired entries are deleted at most once a second per process, so the table holds one window's worth and a second. */
export const REPLAY_PURGE_INTERVAL_MS = 1000

const replayRefusal = () => new UnauthorizedError('Replay detected')

/** The replay record's insert, run with `{ signature, tenantId, expiresAt }`: it returns a row only for a signature not seen before. */
const replayInsert = (db: Executor) => db
  .insert(signatureReplays)
  .values({ signature: sql.placeholder('signature'), tenantId: sql.placeholder('tenantId'), expiresAt: sql.placeholder('expiresAt') })
  .onConflictDoNothing()
  .returning({ s: signatureReplays.signature })
  .prepare()
const replayInsertOnce = preparedOnce('auth:replay-insert', replayInsert)

type ReplayRow = typeof signatureReplays.$inferSelect

const replayRow = (tenantId: string, signature: string, now: number): ReplayRow =>
  ({ signature: `${tenantId}:${signature}`, tenantId, expiresAt: now + SIGNATURE_WINDOW_SECONDS * 2 * 1000 })

/** Whether the purge of expired entries is due now (and if so, it is counted as done). */
function purgeDue(deps: Deps, now: number): boolean {
  const purge = deps.database.memo('signature-replay-purge', () => ({ at: -Infinity }))
  const due = now - purge.at >= REPLAY_PURGE_INTERVAL_MS || now < purge.at
  if (due) purge.at = now
  return due
}

/**
 * Records an accepted signature; false when it was recorded before (a replay). On a local
 * database it is one prepared autocommit insert (`autocommitWrites`): a transaction's BEGIN
 * and COMMIT and the query builder cost more than the insert itself, on every signed
 * request. Against a server, and whenever expired entries are due to be deleted (at most
 * once a second per process, in the same batch), it goes through `database.writeBatch`, one request:
 * as an autocommit insert outside the process's write gate, sqld answered it SQLITE_BUSY
 * now and then (about 1 in 3,000 signed requests, with registrations writing meanwhile).
 */
export async function recordSignature(deps: Deps, tenantId: string, signature: string, now: number): Promise<boolean> {
  return recordRow(deps, replayRow(tenantId, signature, now), purgeDue(deps, now) ? now : undefined)
}

/** The row's insert, with the purge of entries expired before `purgeBefore` when given. */
async function recordRow(deps: Deps, entry: ReplayRow, purgeBefore?: number): Promise<boolean> {
  if (purgeBefore === undefined && deps.database.autocommitWrites) return (await replayInsertOnce(deps.database).all(entry)).length === 1
  // one batch: one request to a server, the purge (when due) and the insert together
  const db = deps.database.db
  const insert = statementOf(db.insert(signatureReplays).values(entry).onConflictDoNothing().returning({ s: signatureReplays.signature }))
  const purge = purgeBefore === undefined ? [] : [statementOf(db.delete(signatureReplays).where(lt(signatureReplays.expiresAt, purgeBefore)))]
  const results = await deps.database.writeBatch([...purge, insert])
  return results[results.length - 1]!.rows.length === 1
}

// Whether a signature is recorded: on a local file one native read of the last committed state (src/db/native-read.ts)
const seenSelect = (db: Db) => db
  .select({ s: signatureReplays.signature })
  .from(signatureReplays)
  .where(eq(signatureReplays.signature, sql.placeholder('signature')))
const seenQuery = preparedOnce('auth:replay-seen', (db) => seenSelect(db).prepare())
const seenRead = nativeGetOnce<{ s: string }, Database>('auth:replay-seen', seenSelect, (database, signature) => seenQuery(database).get({ signature }))
// the row as a plain insert: in a batch, a signature recorded meanwhile fails it on the primary key
const rowStatement = insertRowStatement(signatureReplays)
const isReplayConflict = (err: unknown) => uniqueViolation(err) === 'signature_replays.signature'

/**
 * An accepted signature whose row the route's write records (the `tenantSignedWrite` route
 * option): one write per request instead of two. It is read first, so a replay of a request
 * already recorded is refused here, as on every other signed route, before any work. Two
 * requests with one signature at once both pass that read; the batch of the second fails on
 * the row's primary key (it goes first in the batch), nothing of it is written, and it
 * answers the same 401 Replay detected. When the expired entries are due to be deleted (at
 * most once a second), the row is recorded here with the purge, as other signed routes do.
 */
export async function signatureInWrite(deps: Deps, tenantId: string, signature: string, now: number): Promise<SignatureRecord & Settling> {
  const entry = replayRow(tenantId, signature, now)
  if (purgeDue(deps, now)) {
    if (!(await recordRow(deps, entry, now))) throw replayRefusal()
    return new InWrite(deps, entry, true)
  }
  if (await seenRead(deps.database, entry.signature)) throw replayRefusal()
  return new InWrite(deps, entry, false)
}

/** What the route does with a signature recorded in its verb's write (`settleSignature`). */
export interface Settling {
  /** after the verb answered: records the row if no write of the verb did */
  settle(): Promise<void>
  /** after the verb failed with `err`: records the row if its write did not (a refusal is recorded as on other signed routes) */
  settleFailed(err: unknown): Promise<void>
}

class InWrite implements SignatureRecord, Settling {
  constructor(private readonly deps: Deps, private readonly entry: ReplayRow, private recorded: boolean) {}

  async writeBatch(stmts: InStatement[]): Promise<ResultSet[]> {
    if (this.recorded) return this.deps.database.writeBatch(stmts)
    this.recorded = true
    try {
      return (await this.deps.database.writeBatch([rowStatement(this.deps.database.db, this.entry), ...stmts])).slice(1)
    } catch (err) {
      // recorded by the request that got there first: this one is its replay
      if (isReplayConflict(err)) throw replayRefusal()
      this.recorded = false
      throw err
    }
  }

  async record(): Promise<void> {
    if (this.recorded) return
    this.recorded = true
    if (!(await recordRow(this.deps, this.entry))) throw replayRefusal()
  }

  settle(): Promise<void> {
    return this.record()
  }

  async settleFailed(err: unknown): Promise<void> {
    if (this.recorded) return
    try {
      await this.record()
    } catch (recordErr) {
      // After a refusal (a 4xx), the record's own answer stands: 401 Replay detected when a
      // request with the same signature was recorded meanwhile (this one is its replay), or the
      // database's error. After a failure (a write whose outcome is unknown, a timeout), the
      // verb's error stands.
      if (err instanceof AppError && err.status < 500) throw recordErr
    }
  }
}

/**
 * Runs a verb whose signature is recorded in its write (`tenantSignedWrite`): whatever the
 * verb does, the signature ends up recorded, so a replay of a refused request is refused too.
 */
export async function settleSignature<T>(signature: SignatureRecord, run: () => Promise<T>): Promise<T> {
  const settling = signature as SignatureRecord & Settling
  let out: T
  try {
    out = await run()
  } catch (err) {
    await settling.settleFailed(err)
    throw err
  }
  await settling.settle()
  return out
}
