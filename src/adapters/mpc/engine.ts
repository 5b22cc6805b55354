/**
 * Chooses the MPC engine (port.ts): the built-in one, or the module MPC_ENGINE names, loaded
 * on first use so that no process holds a protocol's WebAssembly before an MPC session needs it
 * (tests/ops/lazy-loading). A deployment's own engine is never a dependency of Slipway: it is
 * installed beside it and named here.
 */
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { assertEngine, type MpcEngine } from './port'

const loaded = new Map<string, Promise<MpcEngine>>()

/** The built-in engine's module. */
const BUILT_IN = 'built-in'

/** `spec`: MPC_ENGINE (a module path, relative to the working directory, or a package name); undefined for the built-in engine. */
export function loadMpcEngine(spec?: string): Promise<MpcEngine> {
  const key = spec ?? BUILT_IN
  let pending = loaded.get(key)
  if (!pending) {
    pending = load(spec).catch((err: unknown) => {
      loaded.delete(key)
      throw err
    })
    loaded.set(key, pending)
  }
  return pending
}

async function load(spec: string | undefined): Promise<MpcEngine> {
  if (spec === undefined) return (await import('./dkls-sll')).engine
  const target = spec.startsWith('.') || isAbsolute(spec) ? pathToFileURL(resolve(spec)).href : spec
  const mod = await import(target) as { engine?: unknown; default?: unknown }
  const engine = mod.engine ?? mod.default
  assertEngine(engine, `MPC_ENGINE=${spec}`)
  return engine
}
