import { describe, expect, test } from 'bun:test'
import { LOCALES, renderMail, type MailTemplate } from '@/modules/mail/templates'

const templates: MailTemplate[] = [
  { kind: 'password-reset', link: 'https://wallet.example.com/reset-password?token=abc&lang=it', validMinutes: 30 },
  { kind: 'social-sign-in', providers: ['apple', 'google'] },
  { kind: 'password-changed', at: Date.UTC(2026, 10, 22, 9, 5) },
]

describe('mail templates', () => {
  test('every message exists in English and Italian, as text and HTML, signed with the sender name', () => {
    for (const locale of LOCALES) {
      for (const tpl of templates) {
        const r = renderMail(tpl, locale, 'Acme Wallet')
        expect(r.subject).toContain('Acme Wallet')
        expect(r.text).toEndWith('— Acme Wallet')
        expect(r.html).toContain(`<html lang="${locale}">`)
        expect(`${r.subject}${r.text}${r.html}`).not.toMatch(/undefined|null|NaN/)
      }
    }
  })

  test('the sender name and link are escaped in HTML', () => {
    const r = renderMail(templates[0]!, 'en', '<script>alert(1)</script> & Co')
    expect(r.html).not.toContain('<script>')
    expect(r.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co')
    expect(r.html).toContain('href="https://wallet.example.com/reset-password?token=abc&amp;lang=it"')
    // text keeps the link as is, so it can be copied
    expect(r.text).toContain('https://wallet.example.com/reset-password?token=abc&lang=it')
  })

  test('the social sign-in email names the linked providers and holds no link', () => {
    expect(renderMail(templates[1]!, 'en', 'Acme').text).toContain('sign in with Apple or Google instead')
    expect(renderMail({ kind: 'social-sign-in', providers: ['google'] }, 'it', 'Acme').text).toContain('accedi con Google')
    expect(renderMail(templates[1]!, 'en', 'Acme').html).not.toContain('href=')
  })

  test('the notice gives the time of the change in UTC', () => {
    expect(renderMail(templates[2]!, 'en', 'Acme').text).toContain('22 November 2026')
    expect(renderMail(templates[2]!, 'it', 'Acme').text).toContain('22 novembre 2026')
  })
})
