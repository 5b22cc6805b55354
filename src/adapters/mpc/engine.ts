/**
 * Chooses the MPC engine (port.ts): the module MPC_ENGINE names, loaded on first use so that no
 * process holds a protocol's WebAssembly before an MPC session needs it (tests/ops/lazy-loading).
 *
 * Slipway carries no engine of its own. The threshold ECDSA libraries on the npm registry are
 * under non-commercial or unstated licences (docs/mpc.md, "The engine"), and a company ships
 * Slipway commercially: an engine is installed beside Slipway by the deployment that holds a
 * licence for it, and named here. `engines/dkls-sll/` is one, on Silence Laboratories' DKLs23,
 * installed on its own (`npm ci --prefix engines/dkls-sll`), never in Slipway's dependency tree.
 */
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { assertEngine, type MpcEngine } from './port'

/** No engine is configured: the deployment serves no MPC wallets until an operator sets MPC_ENGINE. */
export class MpcEngineNotConfigured extends Error {
  constructor() {
    super('This deployment has no MPC engine: an operator sets MPC_ENGINE to an installed engine module (docs/mpc.md, "The engine")')
    this.name = 'MpcEngineNotConfigured'
  }
}

const loaded = new Map<string, Promise<MpcEngine>>()

/** `spec`: MPC_ENGINE (a module path, relative to the working directory, or a package name). */
export function loadMpcEngine(spec: string | undefined): Promise<MpcEngine> {
  if (!spec) return Promise.reject(new MpcEngineNotConfigured())
  let pending = loaded.get(spec)
  if (!pending) {
    pending = load(spec).catch((err: unknown) => {
      loaded.delete(spec)
      throw err
    })
    loaded.set(spec, pending)
  }
  return pending
}

async function load(spec: string): Promise<MpcEngine> {
  const target = spec.startsWith('.') || isAbsolute(spec) ? pathToFileURL(resolve(spec)).href : spec
  const mod = await import(target) as { engine?: unknown; default?: unknown }
  const engine = mod.engine ?? mod.default
  assertEngine(engine, `MPC_ENGINE=${spec}`)
  return engine
}
