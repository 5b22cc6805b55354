/**
 * Three rounds of scripts/chaos.ts in CI: a workload of sends, webhook deliveries and bank ramp deposits against a
 * Slipway process killed with SIGKILL at random moments, with its invariants checked after
 * each restart (the script exits 1 on any violation). `npm run chaos` runs 20 rounds.
 */
import { expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test('three kill -9 rounds under a mixed workload: no send twice or lost, no event lost or re-labelled, no half-written row', async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../scripts/chaos.ts'), '--rounds', '3', '--settle-seconds', '45'], { stdout: 'pipe', stderr: 'pipe' })
  // before the test's own limit: SIGTERM lets the script take its node and Slipway down with it
  const stop = setTimeout(() => proc.kill('SIGTERM'), 400_000)
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).finally(() => clearTimeout(stop))
  if (code !== 0) console.error(out, err)
  expect(code).toBe(0)
  // the run leaves nothing behind: its EVM node (anvil, a process of its own) is gone, and so is its folder
  const [, nodePid, folder] = /chaos: EVM node anvil \(pid (\d+)\) at \S+; working in (\S+)/.exec(out) ?? []
  expect(Number(nodePid)).toBeGreaterThan(0)
  expect(alive(Number(nodePid))).toBe(false)
  expect(existsSync(folder!)).toBe(false)
  expect(out).toMatch(/chaos: 3 rounds, [1-9]\d* acknowledged sends, [1-9]\d* acknowledged events, [1-9]\d* acknowledged deposits, \d+ deliveries received, 0 violations/)
}, 420_000)
