/** The FCM variables: a service account from JSON or a file, never both; problems named by variable, the key never printed. */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '@/config'
import { FakeFcm } from '@tests/fakes/fcm'

const fcm = new FakeFcm()
const dir = mkdtempSync(join(tmpdir(), 'slipway-fcm-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
/** a key as Google issues it (the fake is not started: its token endpoint is not needed here) */
const key = () => JSON.parse(fcm.serviceAccountJson('https://oauth2.googleapis.com/token')) as Record<string, string>
const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('expected a configuration error')
}

describe('FCM configuration', () => {
  test('unset: no service account, FCM\'s public address, 10 s', () => {
    const c = loadConfig({})
    expect(c.fcmServiceAccount).toBeUndefined()
    expect(c.fcmBaseUrl).toBe('https://fcm.googleapis.com')
    expect(c.fcmTimeoutMs).toBe(10_000)
  })

  test('the key\'s content or its file; the project from the key unless FCM_PROJECT_ID says otherwise', () => {
    const k = key()
    const inline = loadConfig({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify(k), FCM_BASE_URL: 'http://127.0.0.1:9/', FCM_TIMEOUT_MS: '2500' })
    expect(inline.fcmServiceAccount).toEqual({ clientEmail: k.client_email!, privateKey: k.private_key!, tokenUri: 'https://oauth2.googleapis.com/token' })
    expect(inline).toMatchObject({ fcmProjectId: k.project_id, fcmBaseUrl: 'http://127.0.0.1:9', fcmTimeoutMs: 2500 })
    const file = join(dir, 'key.json')
    writeFileSync(file, JSON.stringify(k))
    const fromFile = loadConfig({ FCM_SERVICE_ACCOUNT_FILE: file, FCM_PROJECT_ID: 'other-project' })
    expect(fromFile.fcmServiceAccount?.clientEmail).toBe(k.client_email!)
    expect(fromFile.fcmProjectId).toBe('other-project')
  })

  test('bad values are named by variable, and the key\'s content is never in the message', () => {
    const k = key()
    const pem = k.private_key!.split('\n')[1]!
    const file = join(dir, 'key2.json')
    writeFileSync(file, '{}')
    expect(problems({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify(k), FCM_SERVICE_ACCOUNT_FILE: file })).toContain('FCM_SERVICE_ACCOUNT_JSON and FCM_SERVICE_ACCOUNT_FILE are both set')
    const notJson = problems({ FCM_SERVICE_ACCOUNT_JSON: `{"private_key": "${pem}"` })
    expect(notJson).toContain('FCM_SERVICE_ACCOUNT_JSON: not a JSON service account key')
    expect(notJson).not.toContain(pem)
    const noEmail = problems({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify({ ...k, client_email: '' }) })
    expect(noEmail).toContain('lacks client_email')
    expect(noEmail).not.toContain(pem)
    expect(problems({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify({ ...k, project_id: undefined }) })).toContain('set FCM_PROJECT_ID')
    expect(problems({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify({ ...k, token_uri: 'ftp://x' }) })).toContain('token_uri is not an http(s) URL')
    expect(problems({ FCM_SERVICE_ACCOUNT_FILE: join(dir, 'missing.json') })).toContain('FCM_SERVICE_ACCOUNT_FILE: cannot read')
    expect(problems({ FCM_PROJECT_ID: 'p' })).toContain('FCM_PROJECT_ID needs FCM_SERVICE_ACCOUNT_JSON or FCM_SERVICE_ACCOUNT_FILE')
    expect(problems({ FCM_BASE_URL: 'fcm.googleapis.com' })).toContain('FCM_BASE_URL')
    expect(problems({ FCM_TIMEOUT_MS: '5' })).toContain('FCM_TIMEOUT_MS')
    expect(problems({ FCM_SERVICE_ACCOUNT_JSON: JSON.stringify(k), FCM_PROJECT_ID: 'bad project' })).toContain('FCM_PROJECT_ID')
  })
})
