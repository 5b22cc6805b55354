/** Preloaded by bunfig.toml: hooks here run once for the whole `bun test` run. */
import { afterAll } from 'bun:test'
import { ensureMpcEngine } from './helpers/mpc-engine'
import { removeCreatedDirs } from './helpers/process'

// Slipway carries no MPC engine (docs/mpc.md): the tests run the one in engines/, in every app
// and server they start, unless a test sets MPC_ENGINE itself (empty: none)
process.env.MPC_ENGINE ??= ensureMpcEngine()
// argon2id at 1 MiB instead of 19 MiB in every app and server the tests start (0.3 ms of CPU a
// hash instead of 11): only the tests that are about the cost keep it (tests/lib/passwords.test.ts,
// the graceful shutdown's argon2-bound requests in tests/ops/operations.test.ts)
process.env.PASSWORD_HASH_MEMORY_KIB ??= '1024'
// the transactions status job first reads a send after 250 ms instead of 1 s (then 0.5, 1, 2 s...):
// tests wait for sends to confirm, be resent or fail, and a look comes 4 times sooner
process.env.TX_REFRESH_FIRST_MS ??= '250'

afterAll(removeCreatedDirs)
