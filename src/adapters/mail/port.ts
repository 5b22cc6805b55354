/** Outgoing mail: one rendered message handed to whatever delivers it. */
export interface MailMessage {
  /** stable id (the mail job's id), so a retried delivery can be recognised */
  id: string
  tenantId: string | null
  from: { name: string; address: string }
  to: string
  subject: string
  text: string
  html: string
}

export interface MailTransport {
  /** `smtp` sends through SMTP_URL; `local-outbox` keeps messages in the `mail_outbox` table (the mail module's) */
  readonly kind: 'smtp' | 'local-outbox'
  /** Throws when the message was not accepted, so the job is retried. */
  send(message: MailMessage): Promise<void>
  close(): void
}
