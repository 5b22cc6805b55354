/** A step that failed: its one line is printed already. */
export class StepFailed extends Error {}

/**
 * Runs a script's user path: any failure ends it with one line on stderr and exit 1, never a
 * stack trace (a Slipway that stayed down reads `Slipway at … refused the connection for 30 s`).
 */
export async function oneLineOnError(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (err) {
    if (!(err instanceof StepFailed)) console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`)
    process.exit(1)
  }
}

/** What the quickstart scripts share: numbered steps with their time, a failure that says which script, and waiting for a condition. */
export function quickstartSteps(name: string) {
  const started = Date.now()
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`
  const step = (text: string) => console.log(`\n==> ${text}  (${elapsed()})`)
  const fail = (text: string): never => {
    console.error(`${name}: ${text}`)
    throw new StepFailed(text)
  }
  async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
    const end = Date.now() + timeoutMs
    for (;;) {
      const v = await read()
      if (ok(v)) return v
      if (Date.now() > end) fail(`${what}: not reached in ${timeoutMs / 1000} s (last: ${JSON.stringify(v)?.slice(0, 300)})`)
      await Bun.sleep(200)
    }
  }
  /** a port free now, for a server started next */
  const freePort = () => {
    const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const p = s.port!
    s.stop(true)
    return p
  }
  return { step, fail, until, elapsed, freePort }
}
