import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { makeApp, type ManualClock } from '@tests/helpers/app'
import { Factory, unique, type Tenant } from '@tests/helpers/factories'
import { linkIn } from '@tests/fakes/smtp'
import { mailOutbox } from '@/modules/mail/schema'
import { passwordResetTokens } from '@/modules/password-reset/schema'
import { makeWorld, outboxRows, requestLink, resetOn, socialOnlyUser, waitUntil, type World } from './world'

let w: World
let tenant: Tenant

beforeAll(async () => {
  w = await makeWorld()
  tenant = await w.f.tenant(resetOn())
})
afterAll(() => w.close())
beforeEach(() => w.t.deps.rateLimiter.reset())
const clock = () => w.t.clock as ManualClock

const FIXED = 'If an account exists for this email address, a password reset link is on its way.'

describe('POST /v1/auth/forgot-password', () => {
  test('answers the fixed text and emails a single-use link in text and HTML from the tenant\'s sender name', async () => {
    const u = await w.f.user(tenant)
    const res = await w.f.api.post('/v1/auth/forgot-password', { email: u.email }, { signedBy: tenant })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ok: true, message: FIXED })
    const [mail] = await w.smtp.waitFor(u.email)
    expect(mail!.from).toEqual({ name: 'Acme Wallet', address: 'no-reply@slipway.test' })
    expect(mail!.subject).toBe('Reset your Acme Wallet password')
    const link = linkIn(mail!)
    expect(link).toStartWith('http://slipway.test/reset-password?token=')
    const token = new URL(link).searchParams.get('token')!
    // 32 random bytes, base64url: 256 bits
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(mail!.text).toContain('60 minutes')
    expect(mail!.html).toContain(`href="${link}"`)
    const valid = await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)
    expect(valid.body).toEqual({ valid: true })
  })

  test('the email is in Italian with locale it, and the link opens the page in Italian', async () => {
    const u = await w.f.user(tenant)
    const { mail, link } = await requestLink(w, tenant, u.email, 'it')
    expect(mail.subject).toBe('Reimposta la password di Acme Wallet')
    expect(mail.text).toContain('Il link vale 60 minuti')
    expect(new URL(link).searchParams.get('lang')).toBe('it')
  })

  test('the link uses the tenant\'s reset link base URL and validity window', async () => {
    const custom = await w.f.tenant(resetOn({ resetLinkBaseUrl: 'https://app.example.com', tokenTtlMinutes: 15 }))
    const u = await w.f.user(custom)
    const { mail, link } = await requestLink(w, custom, u.email)
    expect(link).toStartWith('https://app.example.com/reset-password?token=')
    expect(mail.text).toContain('15 minutes')
  })

  test('404 the error envelope when the tenant has not enabled password reset', async () => {
    const off = await w.f.tenant()
    const u = await w.f.user(off)
    const res = await w.f.api.post('/v1/auth/forgot-password', { email: u.email }, { signedBy: off })
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ message: 'Password reset is not enabled for this tenant' })
    expect(await outboxRows(w, 'password-reset.request').then((r) => r.filter((x) => x.tenantId === off.id))).toHaveLength(0)
  })

  test('the same answer, headers and work with and without an account; only the account gets mail', async () => {
    const u = await w.f.user(tenant)
    const ghost = `${unique('ghost')}@example.com`
    const before = (await outboxRows(w, 'password-reset.request')).length
    const known = await w.f.api.post('/v1/auth/forgot-password', { email: u.email }, { signedBy: tenant })
    const unknown = await w.f.api.post('/v1/auth/forgot-password', { email: ghost }, { signedBy: tenant })
    expect(unknown.status).toBe(known.status)
    expect(unknown.text).toBe(known.text)
    const headerNames = (h: Headers) => Object.keys(h.toJSON()).filter((k) => k !== 'x-request-id').sort()
    expect(headerNames(unknown.headers)).toEqual(headerNames(known.headers))
    expect(unknown.headers.get('content-length')).toBe(known.headers.get('content-length'))
    // one job queued for each, whatever the address
    expect((await outboxRows(w, 'password-reset.request')).length).toBe(before + 2)
    await w.smtp.waitFor(u.email)
    await waitUntil(async () => (await outboxRows(w)).every((r) => r.dispatchedAt !== null))
    await Bun.sleep(200)
    expect(w.smtp.to(ghost)).toHaveLength(0)
  })

  test('an account that signs in only with Google gets an email pointing to social sign-in, and the same answer', async () => {
    const email = `${unique('social')}@example.com`
    await socialOnlyUser(w, tenant, email)
    const res = await w.f.api.post('/v1/auth/forgot-password', { email }, { signedBy: tenant })
    expect(res.body).toEqual({ ok: true, message: FIXED })
    const [mail] = await w.smtp.waitFor(email)
    expect(mail!.subject).toBe('How to sign in to Acme Wallet')
    expect(mail!.text).toContain('sign in with Google')
    expect(mail!.text).not.toContain('token=')
  })

  test('the address is matched without regard to case', async () => {
    const u = await w.f.user(tenant)
    const res = await w.f.api.post('/v1/auth/forgot-password', { email: u.email.toUpperCase() }, { signedBy: tenant })
    expect(res.status).toBe(200)
    await w.smtp.waitFor(u.email)
  })

  test('a user of another tenant gets nothing from this tenant', async () => {
    const other = await w.f.tenant(resetOn())
    const u = await w.f.user(other)
    const res = await w.f.api.post('/v1/auth/forgot-password', { email: u.email }, { signedBy: tenant })
    expect(res.status).toBe(200)
    await waitUntil(async () => (await outboxRows(w)).every((r) => r.dispatchedAt !== null))
    await Bun.sleep(200)
    expect(w.smtp.to(u.email)).toHaveLength(0)
  })

  test('throttled per email address with 429 the error envelope, counted the same for known and unknown addresses', async () => {
    const u = await w.f.user(tenant)
    const ghost = `${unique('ghost')}@example.com`
    for (const email of [u.email, ghost]) {
      w.t.deps.rateLimiter.reset()
      for (let i = 0; i < 5; i++) {
        // a new second each time: an identical request signed in the same second is a replay
        clock().advance(1000)
        expect((await w.f.api.post('/v1/auth/forgot-password', { email }, { signedBy: tenant })).status).toBe(200)
      }
      const limited = await w.f.api.post('/v1/auth/forgot-password', { email: email.toUpperCase() }, { signedBy: tenant })
      expect(limited.status).toBe(429)
      expect(limited.body).toMatchObject({ message: 'Too many requests, please try again later' })
      expect(limited.headers.get('x-ratelimit-limit')).toBeNull()
      // another address from the same client is still served
      expect((await w.f.api.post('/v1/auth/forgot-password', { email: `${unique('x')}@example.com` }, { signedBy: tenant })).status).toBe(200)
    }
  })

  test('throttled per client IP with 429 the error envelope', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await w.f.api.post('/v1/auth/forgot-password', { email: `${unique('ip')}@example.com` }, { signedBy: tenant })
      expect(res.status).toBe(200)
    }
    const limited = await w.f.api.post('/v1/auth/forgot-password', { email: `${unique('ip')}@example.com` }, { signedBy: tenant })
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ message: 'Too many requests, please try again later' })
  })

  test('bad inputs answer the error envelope and queue nothing', async () => {
    const before = (await outboxRows(w)).length
    const noEmail = await w.f.api.post('/v1/auth/forgot-password', { locale: 'en' }, { signedBy: tenant })
    expect(noEmail.status).toBe(400)
    expect(Object.keys(noEmail.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
    const notEmail = await w.f.api.post('/v1/auth/forgot-password', { email: 'not-an-email' }, { signedBy: tenant })
    expect(notEmail.status).toBe(400)
    expect(Object.keys(notEmail.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
    const badLocale = await w.f.api.post('/v1/auth/forgot-password', { email: 'a@example.com', locale: 'fr' }, { signedBy: tenant })
    expect(badLocale.status).toBe(400)
    const broken = await w.f.api.post('/v1/auth/forgot-password', undefined, { signedBy: tenant, raw: '{"email":' })
    expect(broken.status).toBe(400)
    expect(Object.keys(broken.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
    const unsigned = await w.f.api.post('/v1/auth/forgot-password', { email: 'a@example.com' })
    expect(unsigned.status).toBe(401)
    expect(Object.keys(unsigned.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
    expect((await outboxRows(w)).length).toBe(before)
  })

  test('neither the outbox, the logs nor the token table hold the token in plain text', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email)
    const rows = await outboxRows(w)
    expect(JSON.stringify(rows)).not.toContain(token)
    w.t.deps.logger.flush()
    expect(w.t.logs.join('\n')).toContain('mail sent')
    expect(w.t.logs.join('\n')).not.toContain(token)
    const stored = await w.t.deps.database.db.select().from(passwordResetTokens).all()
    expect(JSON.stringify(stored)).not.toContain(token)
  })

  test('a failed SMTP delivery is retried and the mail arrives; the API answer is unaffected', async () => {
    const u = await w.f.user(tenant)
    w.smtp.refuseFor(u.email, 1)
    const res = await w.f.api.post('/v1/auth/forgot-password', { email: u.email }, { signedBy: tenant })
    expect(res.body).toEqual({ ok: true, message: FIXED })
    const [mail] = await w.smtp.waitFor(u.email, 1, 15_000)
    expect(w.smtp.refusedTo.filter((a) => a === u.email)).toHaveLength(1)
    expect(w.smtp.to(u.email)).toHaveLength(1)
    expect(linkIn(mail!)).toContain('token=')
  }, 20_000)
})

describe('a slow SMTP server', () => {
  test('does not delay the API answer: the mail arrives later', async () => {
    const u = await w.f.user(tenant)
    w.smtp.delayMs = 4000
    try {
      const started = performance.now()
      const res = await w.f.api.post('/v1/auth/forgot-password', { email: u.email }, { signedBy: tenant })
      expect(res.status).toBe(200)
      // well before the SMTP server answers (the margin is for a busy machine)
      expect(performance.now() - started).toBeLessThan(2000)
      expect(w.smtp.to(u.email)).toHaveLength(0)
      await w.smtp.waitFor(u.email)
    } finally {
      w.smtp.delayMs = 0
    }
  })
})

describe('without SMTP_URL', () => {
  test('mail goes to the local mail_outbox table, never to nowhere', async () => {
    const t = await makeApp({ jobs: true })
    try {
      const f = new Factory(t)
      const tn = await f.tenant(resetOn())
      const u = await f.user(tn)
      // no SMTP transport: the mail module keeps the message in its own table
      expect(t.deps.mailer).toBeUndefined()
      expect((await f.api.post('/v1/auth/forgot-password', { email: u.email }, { signedBy: tn })).status).toBe(200)
      await waitUntil(async () => (await t.deps.database.db.select().from(mailOutbox)).length > 0)
      const [row] = await t.deps.database.db.select().from(mailOutbox)
      expect(row!.toAddress).toBe(u.email)
      expect(row!.fromName).toBe('Acme Wallet')
      expect(row!.subject).toBe('Reset your Acme Wallet password')
      expect(row!.text).toContain('http://slipway.test/reset-password?token=')
      expect(row!.html).toContain('<a href="http://slipway.test/reset-password?token=')
    } finally {
      await t.close()
    }
  })
})
