/**
 * SLIPWAY_START_TRACE=1: the server's start phases (src/main.ts) on stderr as one JSON line,
 * written at `ready`: for each, the time since the process started and the process's CPU
 * time then (all its threads), in ms. scripts/bench/binary.ts reads it.
 */
const phases: Record<string, { ms: number; cpuMs: number }> | undefined = process.env.SLIPWAY_START_TRACE ? {} : undefined

export function mark(phase: 'loaded' | 'listening' | 'deps' | 'admin' | 'app' | 'ready') {
  if (!phases) return
  const cpu = process.cpuUsage()
  phases[phase] = { ms: Math.round(performance.now()), cpuMs: Math.round((cpu.user + cpu.system) / 1000) }
  if (phase === 'ready') console.error(JSON.stringify({ startPhases: phases }))
}
