/**
 * The README's bank ramp path, run as CI runs it: `scripts/quickstart-ramp.ts --self-contained`
 * starts the devnet, a Slipway server on a file database, `slipway tenant create --sandbox`,
 * `slipway webhooks listen`, and walks a user through gas, KYC, a deposit credited on chain, a
 * restart of the server (the KYC status, the IBAN payin/initiate answers and the deposits list
 * compared before and after: equal), and a payout, with every webhook event checked by the listener.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'

test('scripts/quickstart-ramp.ts --self-contained: every step passes', async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../scripts/quickstart-ramp.ts'), '--self-contained'], {
    cwd: join(import.meta.dir, '../..'), stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NODE_ENV: 'development' },
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) console.error(out, err)
  expect(code).toBe(0)
  expect(out).toContain('kyc approved (ramp.kyc.updated received and verified)')
  expect(out).toContain('ramp.deposit.updated received and verified')
  expect(out).toContain('==> Slipway restarts')
  expect(out).toMatch(/after the restart: the same KYC status \(approved\), IBAN \(\S+\) and deposits \(1\)/)
  expect(out).toMatch(/ramp\.payout\.updated received and verified/)
  expect(out).toMatch(/every step passed \(\d+ webhook events received, all verified\)/)
}, 180_000)
