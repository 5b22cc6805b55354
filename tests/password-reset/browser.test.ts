/**
 * The reset page in real headless Chromium (Debian's `chromium` package, driven by
 * playwright-core): open the emailed link, submit a new password, sign in with it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { chromiumAvailable as available, launchChromium, warnIfNoChromium } from '@tests/helpers/browser'
import { serve, type HttpServer } from '@tests/helpers/app'
import { unique, type Tenant } from '@tests/helpers/factories'
import { makeWorld, requestLink, resetOn, type World } from './world'

warnIfNoChromium('reset page browser tests')

let w: World
let server: HttpServer
let tenant: Tenant
let browser: Browser

beforeAll(async () => {
  if (!available) return
  w = await makeWorld()
  server = serve(w.t)
  tenant = await w.f.tenant(resetOn({ resetLinkBaseUrl: server.url }))
  browser = await launchChromium()
})
afterAll(async () => {
  if (!available) return
  await browser?.close()
  await server?.stop()
  await w?.close()
})

describe.skipIf(!available)('reset page in Chromium', () => {
  test('open the emailed link, set a new password, then sign in with it', async () => {
    const u = await w.f.user(tenant)
    const { link } = await requestLink(w, tenant, u.email)
    expect(link).toStartWith(`${server.url}/reset-password?token=`)
    const page = await browser.newPage()
    try {
      await page.goto(link)
      const password = page.getByLabel('New password', { exact: true })
      await password.waitFor({ state: 'visible' })
      // the token is taken out of the address bar once read
      expect(page.url()).toBe(`${server.url}/reset-password`)
      await password.fill('Chromium-Reset1')
      await page.getByLabel('Repeat the new password').fill('Chromium-Reset1')
      await page.getByRole('button', { name: 'Set new password' }).click()
      await page.getByText('Your password has been changed. You can now sign in with it.').waitFor()
    } finally {
      await page.close()
    }
    const login = await w.f.api.post('/v1/auth/login', { username: u.username, password: 'Chromium-Reset1' }, { signedBy: tenant })
    expect(login.status).toBe(200)
    expect(login.body.user.id).toBe(u.id)
    const notice = await w.smtp.waitFor(u.email, 2)
    expect(notice[1]!.subject).toBe('Your Acme Wallet password was changed')
  })

  test('an expired or used link shows a clear error instead of the form', async () => {
    const page = await browser.newPage()
    try {
      await page.goto(`${server.url}/reset-password?token=${unique('bogus')}`)
      await page.getByRole('alert').getByText('This reset link is invalid or has expired').waitFor()
      expect(await page.getByLabel('New password', { exact: true }).isVisible()).toBe(false)
    } finally {
      await page.close()
    }
  })

  test('a weak password is explained on the page; a breached one shows the server\'s refusal; the link still works after', async () => {
    const u = await w.f.user(tenant)
    const breached = `Breached-${unique('b')}1A`
    w.hibp.addBreached(breached)
    const { link } = await requestLink(w, tenant, u.email, 'it')
    const page = await browser.newPage()
    try {
      await page.goto(link)
      await page.getByLabel('Nuova password', { exact: true }).waitFor({ state: 'visible' })
      await page.getByLabel('Nuova password', { exact: true }).fill('weakpass')
      await page.getByLabel('Ripeti la nuova password').fill('weakpass')
      await page.getByRole('button', { name: 'Imposta la nuova password' }).click()
      await page.getByRole('alert').getByText('La password non rispetta le regole indicate.').waitFor()
      await page.getByLabel('Nuova password', { exact: true }).fill(breached)
      await page.getByLabel('Ripeti la nuova password').fill(breached)
      await page.getByRole('button', { name: 'Imposta la nuova password' }).click()
      await page.getByRole('alert').getByText('Questa password è comparsa in una violazione di dati nota').waitFor()
      await page.getByLabel('Nuova password', { exact: true }).fill('Good-Passw0rd-it')
      await page.getByLabel('Ripeti la nuova password').fill('Good-Passw0rd-it')
      await page.getByRole('button', { name: 'Imposta la nuova password' }).click()
      await page.getByText('La password è stata modificata').waitFor()
    } finally {
      await page.close()
    }
    const login = await w.f.api.post('/v1/auth/login', { username: u.username, password: 'Good-Passw0rd-it' }, { signedBy: tenant })
    expect(login.status).toBe(200)
  })
})
