/** Reads `read` every 25 ms until `ok` holds for its answer; throws with the last answer after `timeoutMs`. */
export async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > end) throw new Error(`condition not met: ${JSON.stringify(v)?.slice(0, 500)}`)
    await Bun.sleep(25)
  }
}
