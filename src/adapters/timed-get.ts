/**
 * One GET of a partner's JSON API with a time limit over both the answer's arrival and its
 * body, shared by the adapters that read JSON (swap aggregator, prices). The limit is a race,
 * not only the fetch's signal: an in-process sandbox partner is not stopped by an aborted signal.
 * Redirects are not followed. Each adapter maps the answer's status to its own errors; the
 * transport failures come back as the errors it names.
 */
export interface TimedGetFailures {
  timeout: () => Error
  unreachable: () => Error
  unreadable: (status: number) => Error
}

export async function timedGetJson(fetchFn: typeof fetch, url: string, headers: Record<string, string>, timeoutMs: number, fail: TimedGetFailures): Promise<{ res: Response; parsed: unknown }> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(fail.timeout())
    }, timeoutMs)
  })
  const call = async () => {
    let res: Response
    try {
      res = await fetchFn(url, { method: 'GET', headers: { Accept: 'application/json', 'User-Agent': 'Slipway', ...headers }, redirect: 'manual', signal: controller.signal })
    } catch {
      throw fail.unreachable()
    }
    let text: string
    try {
      text = await res.text()
    } catch {
      throw fail.unreadable(res.status)
    }
    return { res, parsed: parseJson(text) }
  }
  try {
    return await Promise.race([call(), timedOut])
  } finally {
    clearTimeout(timer)
  }
}

/** JSON text parsed, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
