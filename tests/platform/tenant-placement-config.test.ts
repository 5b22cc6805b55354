/** TENANT_PLACEMENT (docs/scaling.md): JSON or a file of it, from tenant id to a libSQL URL; off when unset. */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '@/config'

const A = '7d0c7b5e-1c1e-4c39-9d53-8e7f0c2b9a01'
const B = '7d0c7b5e-1c1e-4c39-9d53-8e7f0c2b9a02'

describe('TENANT_PLACEMENT', () => {
  test('unset: no placement, every tenant on DATABASE_URL', () => {
    expect(loadConfig({}).tenantPlacement).toBeUndefined()
  })

  test('JSON, with a URL or a URL and its token per tenant', () => {
    const config = loadConfig({ TENANT_PLACEMENT: JSON.stringify({ [A]: 'http://acme.localhost:8080', [B]: { url: 'libsql://b.db.internal', authToken: 'tok' } }) })
    expect(config.tenantPlacement).toEqual({ [A]: { url: 'http://acme.localhost:8080' }, [B]: { url: 'libsql://b.db.internal', authToken: 'tok' } })
  })

  test('the path of a file holding the JSON', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'placement-')), 'placement.json')
    writeFileSync(file, JSON.stringify({ [A]: 'file:./data/acme.db' }))
    expect(loadConfig({ TENANT_PLACEMENT: file }).tenantPlacement).toEqual({ [A]: { url: 'file:./data/acme.db' } })
  })

  test('a bad value stops the start, naming the variable and the tenant; its token is never shown', () => {
    expect(() => loadConfig({ TENANT_PLACEMENT: '{"x": ' })).toThrow(/TENANT_PLACEMENT: not valid JSON/)
    expect(() => loadConfig({ TENANT_PLACEMENT: '/nowhere/placement.json' })).toThrow(/neither JSON nor a file/)
    expect(() => loadConfig({ TENANT_PLACEMENT: '["http://a"]' })).toThrow(/must be an object/)
    let message = ''
    try {
      loadConfig({ TENANT_PLACEMENT: JSON.stringify({ [A]: { url: 'ftp://x', authToken: 'very-secret-token' } }) })
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toContain(`tenant "${A}" needs a file:, libsql://, http(s):// or ws(s):// URL`)
    expect(message).not.toContain('very-secret-token')
  })

  test('not with an embedded replica (DATABASE_SYNC_URL)', () => {
    const env = { DATABASE_URL: 'file:/tmp/x.db', DATABASE_SYNC_URL: 'http://127.0.0.1:8080', MASTER_KEY: Buffer.alloc(32, 1).toString('base64') }
    expect(() => loadConfig({ ...env, TENANT_PLACEMENT: JSON.stringify({ [A]: 'http://a.localhost:8080' }) })).toThrow(/TENANT_PLACEMENT with DATABASE_SYNC_URL/)
  })
})
