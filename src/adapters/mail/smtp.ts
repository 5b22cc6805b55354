/** Mail through an SMTP server (SMTP_URL) with nodemailer, loaded with the first message (see lib/lazy.ts). */
import type { Transporter } from 'nodemailer'
import { lazy } from '../../lib/lazy'
import type { Metrics } from '../../lib/metrics'
import type { MailMessage, MailTransport } from './port'

export class SmtpTransport implements MailTransport {
  readonly kind = 'smtp' as const
  private created: Transporter | undefined
  private readonly transporter: () => Promise<Transporter>

  constructor(smtpUrl: string, private readonly metrics?: Metrics) {
    // A pooled connection: mail jobs run concurrently and share a few SMTP sessions.
    // Timeouts keep a stuck server from holding a job forever (the job then retries).
    // Settings in the URL's query (e.g. `?pool=false`) win over these defaults.
    this.transporter = lazy(async () => {
      const nodemailer = (await import('nodemailer')).default
      return (this.created = nodemailer.createTransport({
        url: smtpUrl,
        pool: true,
        maxConnections: 3,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      } as Parameters<typeof nodemailer.createTransport>[0]))
    })
  }

  async send(m: MailMessage): Promise<void> {
    const transporter = await this.transporter()
    const sending = () => transporter.sendMail({
      from: m.from,
      to: m.to,
      subject: m.subject,
      text: m.text,
      html: m.html,
      // lets the receiving side and operators match a delivery to its job
      messageId: `<${m.id.replace(/[^A-Za-z0-9.-]/g, '.')}@slipway>`,
      headers: { 'Auto-Submitted': 'auto-generated' },
    })
    await (this.metrics ? this.metrics.externalCall('smtp', sending) : sending())
  }

  close() {
    this.created?.close()
  }
}
