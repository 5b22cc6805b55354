/**
 * Without SMTP_URL, messages are kept in the mail module's own `mail_outbox` table (never
 * dropped), where an operator reads them: `SELECT created_at, to_address, subject, text FROM
 * mail_outbox ORDER BY created_at DESC`. The row is the email itself, link included. It is
 * the module's, not an adapter: it writes the module's table (through its repo).
 */
import type { MailMessage, MailTransport } from '../../adapters/mail/port'
import type { Database } from '../../db/client'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { keepMail } from './repo'

export class LocalOutboxTransport implements MailTransport {
  readonly kind = 'local-outbox' as const
  constructor(private readonly database: Database, private readonly clock: Clock, private readonly logger: Logger) {}

  async send(m: MailMessage): Promise<void> {
    await this.database.write((tx) => keepMail(tx, m.tenantId, {
      id: m.id, fromName: m.from.name, fromAddress: m.from.address, toAddress: m.to, subject: m.subject, text: m.text, html: m.html,
    }, this.clock.now()))
    // Only the id: the message body holds a reset link.
    this.logger.info('mail kept in the local outbox (SMTP_URL is not set)', { mailId: m.id })
  }

  close() {}
}
