/**
 * The docs page in real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * it loads the document from the right address, shows register's body fields and its
 * example, and asks nothing of any host but the server itself (it must work offline).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { chromiumAvailable as available, launchChromium, warnIfNoChromium } from '@tests/helpers/browser'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'

warnIfNoChromium('docs page browser test')

let t: TestApp
let server: HttpServer
let browser: Browser

beforeAll(async () => {
  if (!available) return
  t = await makeApp()
  server = serve(t)
  browser = await launchChromium()
})
afterAll(async () => {
  if (!available) return
  await browser?.close()
  await server?.stop()
  await t?.close()
})

describe.skipIf(!available)('docs page in Chromium', () => {
  test('loads /v1/docs/json, shows register\'s body fields and example, and reaches no other host', async () => {
    const context = await browser.newContext()
    const requested: string[] = []
    const failed: string[] = []
    context.on('request', (r) => requested.push(r.url()))
    context.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`) })
    const page = await context.newPage()
    try {
      await page.goto(`${server.url}/v1/docs`)
      // the signing recipe's worked example is in the introduction
      await page.getByText('Signing, worked example.').first().waitFor({ state: 'visible', timeout: 20_000 })
      await page.getByText('Authentication', { exact: true }).first().click({ timeout: 20_000 })
      await page.getByText('Register a user (tenant-signed)').first().click()
      const op = page.locator('[id$="/POST/v1/auth/register"]').first()
      for (const field of ['username', 'email', 'password', 'wallet']) {
        await page.locator(`[id$="/POST/v1/auth/register.body.${field}"]`).first().waitFor({ state: 'visible' })
      }
      // the request example is the body example of src/http/body-examples.ts
      await op.getByText('alice@example.com').first().waitFor({ state: 'visible' })
    } finally {
      await context.close()
    }
    expect(requested).toContain(`${server.url}/v1/docs/json`)
    expect(requested.filter((u) => u.includes('/v1/v1/'))).toEqual([])
    expect(failed).toEqual([])
    const outside = requested.filter((u) => !u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).hostname !== '127.0.0.1')
    expect(outside).toEqual([])
  }, 60_000)
})
