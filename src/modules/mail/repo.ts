/** The `mail_outbox` table (mail kept without SMTP_URL): the one file that touches it. */
import type { Executor } from '../../db/client'
import { mailOutbox } from './schema'

export interface KeptMail {
  /** the mail job's id: a job that runs twice keeps one row */
  id: string
  fromName: string
  fromAddress: string
  toAddress: string
  subject: string
  text: string
  html: string
}

/** Keeps a message; a second call with the same id changes nothing. `tenantId` is null for platform mail. */
export async function keepMail(db: Executor, tenantId: string | null, mail: KeptMail, now: number): Promise<void> {
  await db.insert(mailOutbox).values({ ...mail, tenantId, createdAt: now }).onConflictDoNothing()
}
