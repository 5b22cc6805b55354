/**
 * Mail is never sent inside a request: `queueMail` writes a `mail.send` job in the
 * caller's transaction and the worker renders and delivers it (SMTP, or the local
 * outbox table without SMTP_URL), retrying on failure. The message content is sealed
 * in the job (it can hold a reset link) and only rendered at send time.
 */
import type { Deps } from '../../deps'
import type { Executor } from '../../db/client'
import { scheduleJob } from '../../jobs/outbox'
import { newId } from '../../lib/ids'
import type { Locale, MailTemplate } from './templates'

export const MAIL_TOPIC = 'mail.send'

export interface QueuedMail {
  tenantId: string | null
  to: string
  senderName: string
  locale: Locale
  template: MailTemplate
  /** stable id for idempotent follow-ups */
  id?: string
}

export interface MailJobPayload {
  to: string
  senderName: string
  locale: Locale
  kind: MailTemplate['kind']
  /** the template (links included), sealed with associated data `mail:<job id>` */
  sealed: string
}

export const mailAad = (jobId: string) => `mail:${jobId}`

export async function queueMail(deps: Deps, tx: Executor, mail: QueuedMail, now: number): Promise<string> {
  const id = mail.id ?? newId()
  const payload: MailJobPayload = {
    to: mail.to,
    senderName: mail.senderName,
    locale: mail.locale,
    kind: mail.template.kind,
    sealed: deps.sealer.seal(JSON.stringify(mail.template), mailAad(id)),
  }
  return scheduleJob(tx, { id, topic: MAIL_TOPIC, tenantId: mail.tenantId, payload: payload as unknown as Record<string, unknown> }, now)
}
