/**
 * The card onramp sandbox's sessions on Slipway's own database (the only file that touches
 * ./schema.ts). Every write goes through `database.write`, the process's single writer.
 */
import { and, asc, eq, lt, sql } from 'drizzle-orm'
import type { Database } from '../../db/client'
import type { SignedTransfer } from '../../adapters/chain/funded-sender'
import type { OnrampSession } from '../../adapters/card-onramp/stripe'
import { sandboxCardOnrampSessions as t } from './schema'

export interface SavedSession {
  tenantId: string
  session: OnrampSession
  /** the last change's event may not have reached Slipway */
  pending: boolean
  /** the stablecoin is being delivered */
  completing: boolean
  /** the delivery's transfer, signed and saved before its broadcast */
  signed?: SignedTransfer
}

export interface CardSandboxPersistence {
  /** every kept session, oldest first */
  load(): Promise<SavedSession[]>
  save(s: SavedSession): Promise<void>
  /** forgets sessions beyond the newest `keep` */
  trim(keep: number): Promise<void>
}

export function libsqlCardPersistence(database: Database, now: () => number): CardSandboxPersistence {
  return {
    async load() {
      const rows = await database.db.select().from(t).orderBy(asc(t.createdAt), asc(sql`rowid`)).all()
      return rows.map((r) => ({
        tenantId: r.tenantId, session: JSON.parse(r.body) as OnrampSession, pending: r.pending === 1, completing: r.completing === 1,
        signed: r.signed ? JSON.parse(r.signed) as SignedTransfer : undefined,
      }))
    },
    save: (s) => database.write(async (tx) => {
      const row = { tenantId: s.tenantId, body: JSON.stringify(s.session), pending: s.pending ? 1 : 0, completing: s.completing ? 1 : 0, signed: s.signed ? JSON.stringify(s.signed) : null }
      await tx.insert(t).values({ id: s.session.id, createdAt: now(), ...row }).onConflictDoUpdate({ target: t.id, set: row })
    }),
    trim: (keep) => database.write(async (tx) => {
      const [edge] = await tx.select({ createdAt: t.createdAt }).from(t).orderBy(sql`${t.createdAt} desc`).limit(1).offset(keep).all()
      // never a session that still owes Slipway something
      if (edge) await tx.delete(t).where(and(lt(t.createdAt, edge.createdAt), eq(t.pending, 0), eq(t.completing, 0)))
    }),
  }
}

