/**
 * `npm run start:deno`: the HTTP API under Deno 2. Deno is a second runtime, so it is not part
 * of Slipway's install: it lives in tools/deno (its own package.json and lock file, like the
 * tests' MPC engine in engines/), installed here the first time it is needed (about 90 MiB,
 * a few seconds from the npm registry), then run with the arguments given.
 *
 *   npm run start:deno                      # deno run --allow-all --sloppy-imports src/deno.ts
 *   bun scripts/deno.ts --version           # any deno command line
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

export const DENO_DIR = join(import.meta.dir, '../tools/deno')

/** The path of the deno executable, installing tools/deno first when it is not yet. */
export function ensureDeno(): string {
  const bin = join(DENO_DIR, 'node_modules/.bin/deno')
  if (!existsSync(bin)) {
    console.error('Deno is not installed yet: installing tools/deno (npm ci --prefix tools/deno)...')
    const run = Bun.spawnSync(['npm', 'ci', '--prefix', DENO_DIR, '--no-audit', '--no-fund', '--loglevel=error'], { stdout: 'inherit', stderr: 'inherit' })
    if (run.exitCode !== 0 || !existsSync(bin)) throw new Error('Deno did not install (npm ci --prefix tools/deno): see the lines above')
  }
  return bin
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const run = Bun.spawn([ensureDeno(), ...(args.length ? args : ['run', '--allow-all', '--sloppy-imports', 'src/deno.ts'])], {
    cwd: join(import.meta.dir, '..'),
    stdio: ['inherit', 'inherit', 'inherit'],
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => run.kill(signal))
  process.exit(await run.exited)
}
