/**
 * The MPC engine the tests run: engines/dkls-sll (Silence Laboratories' DKLs23), installed on its
 * own with its own lock file, apart from Slipway's dependency tree (docs/mpc.md, "The engine").
 * `.ci/run` installs it; a developer's first `npm test` does, once, if `npm ci` alone was run.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

export const MPC_ENGINE_DIR = join(import.meta.dir, '../../engines/dkls-sll')

/** The engine's module path (MPC_ENGINE), installed first when it is not yet. */
export function ensureMpcEngine(): string {
  if (!existsSync(join(MPC_ENGINE_DIR, 'node_modules/@silencelaboratories/dkls-wasm-ll-node/package.json'))) {
    const run = Bun.spawnSync(['npm', 'ci', '--prefix', MPC_ENGINE_DIR, '--no-audit', '--no-fund', '--loglevel=error'], { stdout: 'pipe', stderr: 'pipe' })
    if (run.exitCode !== 0) throw new Error(`the test MPC engine did not install (npm ci --prefix engines/dkls-sll): ${run.stderr.toString().slice(0, 500)}`)
  }
  return MPC_ENGINE_DIR
}
