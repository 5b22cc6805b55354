/**
 * How much memory JavaScriptCore, Bun's engine, is told the machine has.
 *
 * The engine paces its garbage collection by the machine's RAM, and by default Slipway
 * leaves it that way (ENGINE_RAM_MIB=0): measured on the compiled binary under the
 * bearer read, it held 129-137 MiB resident with the best p99 of the policies compared
 * (scripts/bench/binary.ts; docs/operations.md, Memory). A figure set here makes the
 * engine's own concurrent collector keep closer and work harder as the process nears
 * about 80% of it: for a container whose memory limit is far below the host's RAM (the
 * engine reads the host's RAM, not the container's limit). It is a pacing hint, not a
 * limit: a process that needs more still gets it. The price is collections: told 192
 * MiB, `/health`'s p99 went from about 1.7 to 2.5-3 ms (a cheap request allocates fast).
 *
 * The engine reads the option once, when it starts, from `BUN_JSC_forceRAMSize` in the
 * environment, so the server replaces its own process image with one that has it set
 * (`process.execve`: the same process id, so supervisors, signals and Docker see no
 * difference) before it loads anything else. Nothing happens when the variable is
 * already set (the operator's own choice), when ENGINE_RAM_MIB is 0 (the default), or
 * where execve is missing (Windows).
 */
export const ENGINE_RAM_DEFAULT_MIB = 0
export const ENGINE_RAM_MAX_MIB = 1_048_576

/** ENGINE_RAM_MIB as a number of MiB, or undefined when it is not a valid setting (config.ts reports it). */
export function engineRamMib(env: Record<string, string | undefined>): number | undefined {
  const raw = env.ENGINE_RAM_MIB?.trim()
  if (!raw) return ENGINE_RAM_DEFAULT_MIB
  if (!/^\d+$/.test(raw)) return undefined
  const mib = Number(raw)
  return mib <= ENGINE_RAM_MAX_MIB ? mib : undefined
}

/** The MiB the engine was started with (`BUN_JSC_forceRAMSize`), or undefined: the machine's own RAM. */
export function engineRamInEffect(env: Record<string, string | undefined> = process.env): number | undefined {
  const bytes = Number(env.BUN_JSC_forceRAMSize)
  return bytes > 0 ? Math.round(bytes / 1048576) : undefined
}

/**
 * Restarts this process with the engine told ENGINE_RAM_MIB (see above); returns when
 * there is nothing to do. Only the server calls it: one-off commands are short-lived.
 */
export function startEngineWithRamHint(): void {
  const env = process.env
  if (env.BUN_JSC_forceRAMSize !== undefined || typeof process.execve !== 'function' || process.platform === 'win32') return
  const mib = engineRamMib(env)
  if (!mib) return
  // A compiled binary carries its script and its Bun flags inside: its argv[1] is the
  // embedded script's path, not an argument it was given.
  const compiled = process.argv[1]?.startsWith('/$bunfs/') ?? false
  const argv = compiled ? [process.argv0, ...process.argv.slice(2)] : [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
  process.execve(process.execPath, argv, { ...env, BUN_JSC_forceRAMSize: String(mib * 1048576) })
}
