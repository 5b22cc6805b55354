/**
 * Three rounds of scripts/chaos.ts in CI: a workload of sends, webhook deliveries and bank ramp deposits against a
 * Slipway process killed with SIGKILL at random moments, with its invariants checked after
 * each restart (the script exits 1 on any violation). `npm run chaos` runs 20 rounds.
 */
import { expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** ganache's own folders under the temp directory (it makes one when not given a path, and a killed node leaves it) */
const ganacheFolders = () => new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('ganache_')))
/** A folder's maker (`ganache_-<pid>-<random>`) still runs: a node of another test or process on the machine, not one the chaos run killed. */
const makerAlive = (folder: string) => {
  const pid = Number(/^ganache_-(\d+)-/.exec(folder)?.[1])
  if (!pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test('three kill -9 rounds under a mixed workload: no send twice or lost, no event lost or re-labelled, no half-written row', async () => {
  const before = ganacheFolders()
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../scripts/chaos.ts'), '--rounds', '3', '--settle-seconds', '45'], { stdout: 'pipe', stderr: 'pipe' })
  // before the test's own limit: SIGTERM lets the script take its node and Slipway down with it
  const stop = setTimeout(() => proc.kill('SIGTERM'), 400_000)
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).finally(() => clearTimeout(stop))
  if (code !== 0) console.error(out, err)
  expect(code).toBe(0)
  // the run leaves nothing behind in the temp directory (folders of processes still running are other work on the machine)
  expect([...ganacheFolders()].filter((f) => !before.has(f) && !makerAlive(f))).toEqual([])
  expect(out).toMatch(/chaos: 3 rounds, [1-9]\d* acknowledged sends, [1-9]\d* acknowledged events, [1-9]\d* acknowledged deposits, \d+ deliveries received, 0 violations/)
}, 420_000)
