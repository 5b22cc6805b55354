/**
 * The app as a child process on a test's own database folder, delivering webhooks for
 * `hooks.slipway.test` to a local receiver, with PROCESS_ADMIN as its admin (see
 * tests/helpers/process.ts): what the kill -9 tests start, kill and start again.
 */
import { expect } from 'bun:test'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, startProcess } from '@tests/helpers/process'
import type { WebhookReceiver } from '@tests/fakes/webhook-receiver'

export function webhookProcess(dir: string, receiver: WebhookReceiver, env: Record<string, string> = {}) {
  return startProcess([process.execPath, 'src/index.ts'], {
    dir,
    env: {
      NODE_ENV: 'test',
      MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
      JWT_SECRET: 'crash-test-jwt-secret-0123456789abcdef',
      WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}`,
      ...env,
    },
  })
}

/**
 * In a running app: signs in as PROCESS_ADMIN, creates a tenant (bank ramp connected in
 * sandbox, which webhooks need) with a sandbox webhook at `https://hooks.slipway.test<path>`.
 * `hooks` is the webhook's admin path, `secret` its signing secret; `sendTest()` asks for a test delivery and returns its id.
 */
export async function tenantWithHook(url: string, name: string, path: string) {
  const api = new Api(url)
  const token = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken as string
  const tenant = await api.post('/v1/admin/tenants', { name, settings: { bankRamp: { sandbox: { connected: true } } } }, { token })
  expect(tenant.status, JSON.stringify(tenant.body)).toBe(201)
  const hooks = `/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox`
  const hook = await api.put(hooks, { url: `https://hooks.slipway.test${path}` }, { token })
  expect(hook.status, JSON.stringify(hook.body)).toBe(201)
  const sendTest = async () => {
    const sent = await api.post(`${hooks}/test`, undefined, { token })
    expect(sent.status).toBe(202)
    return sent.body.id as string
  }
  return { api, token, tenantId: tenant.body.id as string, hooks, secret: hook.body.secret as string, sendTest }
}
