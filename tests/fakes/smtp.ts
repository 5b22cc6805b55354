/**
 * A real SMTP server in the test process (smtp-server): accepts mail on 127.0.0.1,
 * parses each message (postal-mime) and keeps it for the test to read.
 */
import { SMTPServer } from 'smtp-server'
import PostalMime from 'postal-mime'

export interface ReceivedMail {
  from: { name: string; address: string }
  to: string[]
  subject: string
  text: string
  html: string
  headers: Record<string, string>
}

export class FakeSmtp {
  readonly messages: ReceivedMail[] = []
  /** per recipient: how many upcoming messages to refuse with a 451 (temporary failure) */
  private readonly refuse = new Map<string, number>()
  /** recipients of the messages refused so far */
  readonly refusedTo: string[] = []
  /** milliseconds to wait before answering each message (a slow server) */
  delayMs = 0
  private server?: SMTPServer
  port = 0

  async start() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', async () => {
          if (this.delayMs) await Bun.sleep(this.delayMs)
          const rcpt = session.envelope.rcptTo.map((r) => r.address)
          const target = rcpt.find((a) => (this.refuse.get(a) ?? 0) > 0)
          if (target) {
            this.refuse.set(target, this.refuse.get(target)! - 1)
            this.refusedTo.push(target)
            const err = Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 451 })
            return callback(err)
          }
          const parsed = await PostalMime.parse(Buffer.concat(chunks))
          this.messages.push({
            from: { name: parsed.from?.name ?? '', address: parsed.from?.address ?? '' },
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: parsed.html ?? '',
            headers: Object.fromEntries(parsed.headers.map((h) => [h.key, h.value])),
          })
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()))
    this.port = (this.server as unknown as { server: { address(): { port: number } } }).server.address().port
    return this
  }

  /** The next `times` messages to `address` are refused with a temporary failure. */
  refuseFor(address: string, times = 1) {
    this.refuse.set(address, times)
  }

  get url() {
    return `smtp://127.0.0.1:${this.port}`
  }

  /** Messages sent to `to`, waiting up to `timeoutMs` for at least `count` of them. */
  async waitFor(to: string, count = 1, timeoutMs = 10_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const got = this.messages.filter((m) => m.to.includes(to.toLowerCase()) || m.to.includes(to))
      if (got.length >= count) return got
      if (Date.now() > deadline) throw new Error(`expected ${count} message(s) to ${to}, got ${got.length}`)
      await Bun.sleep(25)
    }
  }

  to(address: string) {
    return this.messages.filter((m) => m.to.includes(address))
  }

  async stop() {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
  }
}

/** The reset link in a message's text part. */
export function linkIn(mail: ReceivedMail): string {
  const m = /https?:\/\/\S+reset-password\?token=[A-Za-z0-9_-]+\S*/.exec(mail.text)
  if (!m) throw new Error(`no reset link in: ${mail.text}`)
  return m[0]
}

export const tokenOf = (link: string) => new URL(link).searchParams.get('token')!
