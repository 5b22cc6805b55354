/**
 * The app as a child process on a test's own database folder, delivering webhooks for
 * `hooks.slipway.test` to a local receiver, with PROCESS_ADMIN as its admin (see
 * tests/helpers/process.ts): what the kill -9 tests start, kill and start again.
 */
import { startProcess } from '@tests/helpers/process'
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
