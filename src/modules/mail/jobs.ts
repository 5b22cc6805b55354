/** The `mail.send` handler: open the sealed template, render it, hand it to the transport. */
import type { MailTransport } from '../../adapters/mail/port'
import type { Deps } from '../../deps'
import type { JobRunner } from '../../jobs/runner'
import { LocalOutboxTransport } from './local-outbox'
import { MAIL_TOPIC, mailAad, type MailJobPayload } from './service'
import { renderMail, type MailTemplate } from './templates'

/** SMTP where SMTP_URL is set (deps.mailer), else the module's own outbox table. */
const transportOf = (deps: Deps): MailTransport => deps.mailer ?? new LocalOutboxTransport(deps.database, deps.clock, deps.logger)

export function registerMailJobs(runner: JobRunner) {
  runner.register(MAIL_TOPIC, {
    // A failing SMTP server is retried with exponential backoff: 2 s, 4 s, 8 s... about 8.5 minutes in all.
    attempts: 9,
    backoffMs: 2000,
    async handler(raw, { deps, id, tenantId }) {
      const p = raw as unknown as MailJobPayload
      const template = JSON.parse(deps.sealer.open(p.sealed, mailAad(id))) as MailTemplate
      const rendered = renderMail(template, p.locale, p.senderName)
      const transport = transportOf(deps)
      await transport.send({ id, tenantId, from: { name: p.senderName, address: deps.config.mailFrom }, to: p.to, ...rendered })
      deps.logger.info('mail sent', { mailId: id, kind: p.kind, transport: transport.kind })
    },
  })
  return runner
}
