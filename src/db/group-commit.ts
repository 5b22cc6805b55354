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
 */
import type { InStatement, ResultSet } from '@libsql/client'
import { DatabaseUnavailableError } from './errors'

interface Member { stmts: InStatement[]; resolve: (r: ResultSet[]) => void; reject: (e: unknown) => void }

export class GroupCommit {
  private inFlight = 0
  private waiting: Member[] = []

  /** `send` runs one batch on the server (with its deadline and retries). */
  constructor(private readonly send: (stmts: InStatement[]) => Promise<ResultSet[]>, private readonly maxGroups = 1, private readonly maxStatements = 200) {}

  run(stmts: InStatement[]): Promise<ResultSet[]> {
    return new Promise<ResultSet[]>((resolve, reject) => {
      this.waiting.push({ stmts, resolve, reject })
      this.pump()
    })
  }

  private pump() {
    while (this.inFlight < this.maxGroups && this.waiting.length) {
      const group: Member[] = []
      let n = 0
      while (this.waiting.length && (group.length === 0 || n + this.waiting[0]!.stmts.length <= this.maxStatements)) {
        const m = this.waiting.shift()!
        group.push(m)
        n += m.stmts.length
      }
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
      await this.send(m.stmts).then(m.resolve, m.reject)
      return
    }
    let results: ResultSet[]
    try {
      results = await this.send(group.flatMap((m) => m.stmts))
    } catch (err) {
      if (err instanceof DatabaseUnavailableError) {
        for (const m of group) m.reject(err)
        return
      }
      // the group wrote nothing: each member alone, so only the one at fault fails
      await Promise.all(group.map((m) => this.send(m.stmts).then(m.resolve, m.reject)))
      return
    }
    let at = 0
    for (const m of group) {
      m.resolve(results.slice(at, at + m.stmts.length))
      at += m.stmts.length
    }
  }
}
