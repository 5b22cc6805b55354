import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { resetLink } from '@/modules/password-reset/service'

let t: TestApp
beforeAll(async () => {
  t = await makeApp({ admin: false })
})
afterAll(() => t.close())

const page = (q = '') => t.handle(new Request(`http://slipway.test/reset-password${q}`))

describe('GET /reset-password', () => {
  test('serves a self-contained HTML page with a strict CSP and no referrer', async () => {
    const res = await page('?token=abc')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('cache-control')).toBe('no-store')
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("connect-src 'self'")
    const html = await res.text()
    // no external assets
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//)
    expect(html).toContain('<label for="password">New password</label>')
    expect(html).toContain('at least 8 characters')
    // the token is read by the script, never written into the page
    expect(html).not.toContain('abc')
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!
    expect(html).toContain(`<script nonce="${nonce}">`)
  })

  test('each answer has its own nonce', async () => {
    const a = (await page()).headers.get('content-security-policy')
    const b = (await page()).headers.get('content-security-policy')
    expect(a).not.toBe(b)
  })

  test('lang=it shows the page in Italian', async () => {
    const html = await (await page('?token=x&lang=it')).text()
    expect(html).toContain('<html lang="it">')
    expect(html).toContain('Scegli una nuova password')
  })

  test('the reset routes are in the OpenAPI document with their error envelopes', async () => {
    const doc = (await (await t.handle(new Request('http://slipway.test/v1/docs/json'))).json()) as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> }
    expect(doc.paths['/v1/auth/forgot-password']!.post!.operationId).toBe('forgotPassword')
    expect(Object.keys(doc.paths['/v1/auth/forgot-password']!.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '429']))
    expect(Object.keys(doc.paths['/v1/auth/reset-password']!.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '429', '503']))
    expect(doc.paths['/v1/auth/reset-password/validate']!.get!.operationId).toBe('validateResetToken')
    expect(doc.paths['/v1/auth/admin/send-reset']!.post!.operationId).toBe('adminSendReset')
    expect(doc.paths['/reset-password']!.get!.operationId).toBe('resetPasswordPage')
  })

  test('the token is never written to the request log', async () => {
    await page('?token=secret-token-value')
    await Bun.sleep(10)
    t.deps.logger.flush()
    expect(t.logs.join('\n')).toContain('"path":"/reset-password"')
    expect(t.logs.join('\n')).not.toContain('secret-token-value')
  })
})

describe('reset links', () => {
  test('a base URL without a path gets /reset-password; one with a path of its own keeps it', () => {
    expect(resetLink('https://wallet.example.com', 'tok', 'en')).toBe('https://wallet.example.com/reset-password?token=tok')
    expect(resetLink('https://wallet.example.com/', 'tok', 'it')).toBe('https://wallet.example.com/reset-password?token=tok&lang=it')
    expect(resetLink('https://app.example.com/account/reset', 'tok', 'en')).toBe('https://app.example.com/account/reset?token=tok')
  })
})
