/** Preloaded by bunfig.toml: hooks here run once for the whole `bun test` run. */
import { afterAll } from 'bun:test'
import { ensureMpcEngine } from './helpers/mpc-engine'
import { removeCreatedDirs } from './helpers/process'

// Slipway carries no MPC engine (docs/mpc.md): the tests run the one in engines/, in every app
// and server they start, unless a test sets MPC_ENGINE itself (empty: none)
process.env.MPC_ENGINE ??= ensureMpcEngine()

afterAll(removeCreatedDirs)
