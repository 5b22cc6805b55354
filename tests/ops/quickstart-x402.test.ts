/**
 * docs/agent-payments.md's x402 example, run as CI runs it: `scripts/quickstart-x402.ts
 * --self-contained` starts `scripts/devnet.ts` (the chains and the x402 merchant), a Slipway
 * server reading its env file, `slipway tenant create --sandbox --admin`, and an agent pays
 * https://x402.devnet.test/weather over x402: succeeded, the forecast, the receipt, the USDC moved.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'

test('scripts/quickstart-x402.ts --self-contained: every step passes', async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../scripts/quickstart-x402.ts'), '--self-contained'], {
    cwd: join(import.meta.dir, '../..'), stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NODE_ENV: 'development' },
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) console.error(out, err)
  expect(code).toBe(0)
  expect(out).toMatch(/execution \S+: succeeded, 0\.01 USDC, transaction 0x[0-9a-f]{64}/)
  expect(out).toContain('the resource answered: {"city":"Lisbon","forecast":"sunny","temperatureC":21}')
  expect(out).toMatch(/receipt: 10000 USDC units to 0xE04Ec2E4549Fdbf1E04a1cCC1210C7774f23b862 in 0x[0-9a-f]{64}/)
  expect(out).toContain('the wallet holds 4990000 USDC units')
  expect(out).toContain('quickstart-x402: every step passed')
}, 120_000)
