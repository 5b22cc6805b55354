/**
 * Mail's sealed values, for `slipway reseal` (src/ops/reseal.ts): the template of each
 * `mail.send` job still in the outbox, sealed in the job's payload. Jobs already in the
 * queue are not rewritten (the queue holds its own copy, sent within minutes).
 */
import type { SealedColumn } from '../../db/sealed-columns'
import { pendingJobsAfter, pendingPayloads, replacePendingPayload } from '../../jobs/outbox'
import { Sealer } from '../../lib/crypto'
import { MAIL_TOPIC, mailAad } from './service'

export const sealedColumns: SealedColumn[] = [
  {
    name: 'outbox mail.send (not yet queued)',
    async scan(db, current, after, limit) {
      const rows = await pendingJobsAfter(db, MAIL_TOPIC, after, limit)
      // the payload is JSON, so the version is checked here rather than in SQL
      const items = rows.map((r) => ({ key: r.id, sealed: String(r.payload.sealed ?? ''), aad: mailAad(r.id) }))
      return { items: items.filter((i) => i.sealed && Sealer.versionOf(i.sealed) !== current), last: rows.at(-1)?.id }
    },
    write(database, item, next) {
      return database.write((tx) => replacePendingPayload(tx, item.key, (payload) => (payload.sealed === item.sealed ? { ...payload, sealed: next } : null)))
    },
    async all(db) {
      return (await pendingPayloads(db, MAIL_TOPIC)).map((p) => String(p.sealed ?? '')).filter(Boolean)
    },
  },
]
