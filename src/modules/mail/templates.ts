/**
 * The messages Slipway sends, in English and Italian, as text and HTML. HTML is
 * built from escaped values only; links are the one place a value goes into an
 * attribute, and they are built by the service from a configured base URL.
 */
export type Locale = 'en' | 'it'
export const LOCALES = ['en', 'it'] as const

export type MailTemplate =
  | { kind: 'password-reset'; link: string; validMinutes: number }
  | { kind: 'social-sign-in'; providers: Array<'google' | 'apple'> }
  | { kind: 'password-changed'; at: number }

export interface Rendered {
  subject: string
  text: string
  html: string
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

const BUTTON_STYLE = 'display:inline-block;background:#1d4ed8;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none'

const providerName = { google: 'Google', apple: 'Apple' } as const

function listOf(names: string[], locale: Locale) {
  if (names.length <= 1) return names.join('')
  return `${names.slice(0, -1).join(', ')} ${locale === 'it' ? 'o' : 'or'} ${names.at(-1)}`
}

function formatTime(at: number, locale: Locale) {
  return new Intl.DateTimeFormat(locale === 'it' ? 'it-IT' : 'en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(at)) + ' UTC'
}

interface Parts {
  subject: string
  paragraphs: string[]
  button?: { label: string; href: string }
  after?: string[]
}

function parts(t: MailTemplate, locale: Locale, sender: string): Parts {
  const it = locale === 'it'
  switch (t.kind) {
    case 'password-reset':
      return it
        ? {
            subject: `Reimposta la password di ${sender}`,
            paragraphs: ['Abbiamo ricevuto una richiesta di reimpostare la password del tuo account.', 'Per scegliere una nuova password apri questo link:'],
            button: { label: 'Reimposta la password', href: t.link },
            after: [`Il link vale ${t.validMinutes} minuti e si può usare una sola volta.`, 'Se non sei stato tu, ignora questo messaggio: la tua password resta invariata.'],
          }
        : {
            subject: `Reset your ${sender} password`,
            paragraphs: ['We received a request to reset the password of your account.', 'To choose a new password, open this link:'],
            button: { label: 'Reset password', href: t.link },
            after: [`The link is valid for ${t.validMinutes} minutes and can be used once.`, "If you did not ask for this, ignore this message: your password stays as it is."],
          }
    case 'social-sign-in': {
      const names = listOf(t.providers.map((p) => providerName[p]), locale)
      return it
        ? {
            subject: `Come accedere a ${sender}`,
            paragraphs: [
              'Abbiamo ricevuto una richiesta di reimpostare la password del tuo account.',
              `Il tuo account non usa una password: accedi con ${names}.`,
              'Se non sei stato tu, ignora questo messaggio.',
            ],
          }
        : {
            subject: `How to sign in to ${sender}`,
            paragraphs: [
              'We received a request to reset the password of your account.',
              `Your account does not use a password: sign in with ${names} instead.`,
              'If you did not ask for this, ignore this message.',
            ],
          }
    }
    case 'password-changed': {
      const when = formatTime(t.at, locale)
      return it
        ? {
            subject: `La tua password ${sender} è stata modificata`,
            paragraphs: [
              `La password del tuo account è stata modificata il ${when}. Le sessioni aperte prima della modifica sono state chiuse.`,
              "Se non sei stato tu, reimposta subito la password e contatta l'assistenza.",
            ],
          }
        : {
            subject: `Your ${sender} password was changed`,
            paragraphs: [
              `The password of your account was changed on ${when}. Sessions opened before the change were signed out.`,
              'If this was not you, reset your password now and contact support.',
            ],
          }
    }
  }
}

export function renderMail(t: MailTemplate, locale: Locale, senderName: string): Rendered {
  const p = parts(t, locale, senderName)
  const textLines = [...p.paragraphs, ...(p.button ? [p.button.href] : []), ...(p.after ?? []), '', `— ${senderName}`]
  const para = (s: string) => `<p style="margin:0 0 16px">${esc(s)}</p>`
  const html = [
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${esc(p.subject)}</title></head>`,
    '<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1a1a1a;line-height:1.5;max-width:560px;margin:0 auto;padding:24px">',
    ...p.paragraphs.map(para),
    ...(p.button
      ? [
          `<p style="margin:0 0 16px"><a href="${esc(p.button.href)}" style="${BUTTON_STYLE}">${esc(p.button.label)}</a></p>`,
          `<p style="margin:0 0 16px;font-size:13px;word-break:break-all">${esc(p.button.href)}</p>`,
        ]
      : []),
    ...(p.after ?? []).map(para),
    `<p style="margin:24px 0 0;color:#555">— ${esc(senderName)}</p>`,
    '</body></html>',
  ].join('\n')
  return { subject: p.subject, text: textLines.join('\n\n').replace(/\n\n\n\n/g, '\n\n'), html }
}
