/**
 * `npm test`: every test file, in TEST_WORKERS worker processes at once (default 3, Bun's
 * `--parallel`), the slowest files first (tests/timings.json, per-file durations measured
 * on a 2-core machine), with a 30 s limit per test. Three on two cores, because most files
 * mostly wait (processes starting, chains mining, jobs backing off): alone, the 48 slowest
 * files used 219 s of CPU in 990 s (docs/reliability.md, "The test suite's time"). Each worker keeps one module registry
 * across the files it runs (`--no-isolate`), as a single `bun test` process does: a fresh one
 * per file loaded the app's modules again for each, 15-25% slower here.
 *
 * Why flags and not bunfig.toml: Bun 1.4 ignores `[test] timeout` there (oven-sh/bun#7789),
 * so every test ran under its 5 s default. Files keep apart when two run at once: every port
 * is asked of the OS (port 0) and every folder is a fresh mkdtemp (tests/helpers/process.ts).
 *
 * Arguments go on to `bun test` (paths, `-t`, `--bail`...). TEST_WORKERS=1 runs one file at a
 * time; TEST_TIMEOUT_MS sets the per-test limit (docs/reliability.md, "The test suite").
 */
import { ensureMpcEngine } from '../tests/helpers/mpc-engine'
import { ensureDeno } from './deno'

// Installed here, once, before the workers start: two preloads would both run `npm ci` on them.
ensureMpcEngine()
ensureDeno()

const workers = Number(process.env.TEST_WORKERS ?? 3)
const timeout = Number(process.env.TEST_TIMEOUT_MS ?? 30_000)
if (!Number.isInteger(workers) || workers < 1) throw new Error(`TEST_WORKERS must be a whole number of at least 1, not ${process.env.TEST_WORKERS}`)
if (!Number.isInteger(timeout) || timeout < 1) throw new Error(`TEST_TIMEOUT_MS must be a whole number of milliseconds, not ${process.env.TEST_TIMEOUT_MS}`)

const args = [process.execPath, 'test', `--timeout=${timeout}`, '--timings=tests/timings.json']
if (workers > 1) args.push(`--parallel=${workers}`, '--no-isolate')
const run = Bun.spawn([...args, ...process.argv.slice(2)], { cwd: `${import.meta.dir}/..`, stdio: ['inherit', 'inherit', 'inherit'] })
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => run.kill(signal))
process.exit(await run.exited)
