/**
 * Group commit against a server: the write batches (`Database.writeBatch`) of concurrent requests
 * of one process go to the primary together, as one batch, each request still answered with its
 * own results. While `maxGroups` batches are in flight, new ones wait in line; when one returns,
 * everything waiting goes as the next group. A group is one transaction: one request to the
 * server, one turn of its write lock, one commit (and for an embedded replica, fewer frames to pull).
 *
 * A libSQL batch is atomic: one failing statement fails the whole group, and the group wrote
 * nothing. So a group refused for anything other than the server being unreachable is sent again
 * as its members, each alone: the failing request gets its own error (a unique index's 409, say)
 * and its neighbours their results. A server that does not answer fails every member (503).
 *
 * Each member has a deadline (the caller's answer is bounded by it, client.ts): a member still in
 * line at its deadline, or too close to it for an answer (MIN_LEFT_MS), is not sent at all (its caller
 * has its 503), so a server that answers
 * slowly is not handed work nobody waits for; a group in flight is sent, and retried on the server's
 * busy lock, only until the last of its members' deadlines.
 */
import type { InStatement, ResultSet } from '@libsql/client'
import { DatabaseUnavailableError } from './errors'

/** A batch with less time than this left before its deadline is not sent: no answer could come back in time. */
export const MIN_LEFT_MS = 25

interface Member { stmts: InStatement[]; deadline: number; resolve: (r: ResultSet[]) => void; reject: (e: unknown) => void }

export class GroupCommit {
  private inFlight = 0
  private waiting: Member[] = []

  /**
   * `send` runs one batch on the server, within `deadline` (with its retries); `late` is the error of a member
   * whose deadline passed in line.
   */
  constructor(
    private readonly send: (stmts: InStatement[], deadline: number) => Promise<ResultSet[]>,
    private readonly maxGroups = 1,
    private readonly maxStatements = 200,
    private readonly late: () => Error = () => new DatabaseUnavailableError('The database server did not answer in time'),
  ) {}

  /** Runs `stmts` in the next group; not sent at all if still in line at `deadline` (epoch ms). */
  run(stmts: InStatement[], deadline = Infinity): Promise<ResultSet[]> {
    return new Promise<ResultSet[]>((resolve, reject) => {
      this.waiting.push({ stmts, deadline, resolve, reject })
      this.pump()
    })
  }

  private pump() {
    while (this.inFlight < this.maxGroups && this.waiting.length) {
      const group: Member[] = []
      let n = 0
      const now = Date.now()
      while (this.waiting.length && (group.length === 0 || n + this.waiting[0]!.stmts.length <= this.maxStatements)) {
        const m = this.waiting.shift()!
        if (m.deadline - now < MIN_LEFT_MS) {
          m.reject(this.late())
          continue
        }
        group.push(m)
        n += m.stmts.length
      }
      if (!group.length) continue
      this.inFlight++
      void this.flush(group).finally(() => {
        this.inFlight--
        this.pump()
      })
    }
  }

  private async flush(group: Member[]) {
    if (group.length === 1) {
      const m = group[0]!
      await this.send(m.stmts, m.deadline).then(m.resolve, m.reject)
      return
    }
    let results: ResultSet[]
    try {
      results = await this.send(group.flatMap((m) => m.stmts), Math.max(...group.map((m) => m.deadline)))
    } catch (err) {
      if (err instanceof DatabaseUnavailableError) {
        for (const m of group) m.reject(err)
        return
      }
      // the group wrote nothing: each member alone, so only the one at fault fails
      await Promise.all(group.map((m) => (m.deadline - Date.now() < MIN_LEFT_MS ? m.reject(this.late()) : this.send(m.stmts, m.deadline).then(m.resolve, m.reject))))
      return
    }
    let at = 0
    for (const m of group) {
      m.resolve(results.slice(at, at + m.stmts.length))
      at += m.stmts.length
    }
  }
}
