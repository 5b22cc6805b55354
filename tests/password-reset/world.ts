/** A Slipway app wired to a real SMTP server and a fake HIBP range API, with the job runner on. */
import { eq } from 'drizzle-orm'
import { makeApp, type ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { FakeSmtp, linkIn, tokenOf, type ReceivedMail } from '@tests/fakes/smtp'
import { FakeHibp } from '@tests/fakes/hibp'
import { outbox } from '@/jobs/schema'
import { userIdentities } from '@/db/schema'
import { insertUser } from '@/modules/users/repo'

export interface World {
  t: TestApp
  f: Factory
  smtp: FakeSmtp
  hibp: FakeHibp
  close(): Promise<void>
  /** Moves the app's clock; signs the admin in again afterwards, as its token may have expired. */
  advance(ms: number): void
}

/**
 * The breach check's time limit here: the default (3 s). The fake answers in the same process, so on a loaded machine
 * (CI's CPU burners beside three test workers) its answer took up to 1 s; at 500 ms a reset answered 503 where a 200 was
 * expected. The fake's `slow` mode (10 s) stays well past it, so the timeout's test still tells the limit from the fake.
 */
export const HIBP_TIMEOUT_MS = 3000

export async function makeWorld(env: Record<string, string> = {}): Promise<World> {
  const smtp = await new FakeSmtp().start()
  const hibp = new FakeHibp().start()
  const t = await makeApp({ env: { SMTP_URL: smtp.url, HIBP_BASE_URL: hibp.url, HIBP_TIMEOUT_MS: String(HIBP_TIMEOUT_MS), ...env }, jobs: true })
  const w: World = {
    t, f: new Factory(t), smtp, hibp,
    advance: (ms) => {
      ;(t.clock as ManualClock).advance(ms)
      if (ms > 60_000) w.f = new Factory(t)
    },
    close: async () => {
      await t.close()
      t.deps.mailer?.close()
      await smtp.stop()
      hibp.stop()
    },
  }
  return w
}

export const resetOn = (extra: Record<string, unknown> = {}) => ({ passwordReset: { enabled: true, senderName: 'Acme Wallet', ...extra } })

/** Asks for a reset link and returns the delivered email, its link and token. */
export async function requestLink(w: World, tenant: Tenant, email: string, locale?: 'en' | 'it'): Promise<{ mail: ReceivedMail; link: string; token: string }> {
  const before = w.smtp.to(email).length
  const res = await w.f.api.post('/v1/auth/forgot-password', { email, ...(locale ? { locale } : {}) }, { signedBy: tenant })
  if (res.status !== 200) throw new Error(`forgot-password answered ${res.status} ${res.text}`)
  const mails = await w.smtp.waitFor(email, before + 1)
  const mail = mails[before]!
  const link = linkIn(mail)
  return { mail, link, token: tokenOf(link) }
}

/** A user who signs in only with Google (no password), linked by provider subject. */
export async function socialOnlyUser(w: World, tenant: Tenant, email: string) {
  const now = w.t.clock.now()
  return w.t.deps.database.write(async (tx) => {
    const user = await insertUser(tx, { id: crypto.randomUUID(), tenantId: tenant.id, username: `g_${crypto.randomUUID().slice(0, 8)}`, email, passwordHash: null, role: 'user', now })
    await tx.insert(userIdentities).values({ id: crypto.randomUUID(), tenantId: tenant.id, userId: user.id, provider: 'google', subject: `sub-${user.id}`, email, createdAt: now })
    return user
  })
}

export async function outboxRows(w: World, topic?: string) {
  const rows = await w.t.deps.database.db.select().from(outbox)
  return topic ? rows.filter((r) => r.topic === topic) : rows
}

export async function waitUntil(fn: () => Promise<boolean> | boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await Bun.sleep(20)
  }
}

export { eq, type SignedInUser }
