/**
 * How the client fails, in one place: an answer is never thrown (every call returns openapi-fetch's
 * `{ data, error, response }`, `error` typed per status), and `orThrow` turns an error answer
 * into a `SlipwayError` for code that would rather throw. Only two things throw on their own: a
 * usage mistake (no session to refresh, a signed call without credentials) and no answer at all
 * (`SlipwayUnreachableError`), after waiting for a server that is restarting.
 */

/** An error answer, thrown by `orThrow`: one line, `METHOD /path answered 404 NOT_FOUND: Wallet not found`. */
export class SlipwayError extends Error {
  override readonly name = 'SlipwayError'
  constructor(
    readonly status: number,
    /** the envelope's `code` (`NOT_FOUND`), when the answer has one */
    readonly code: string | undefined,
    /** the answer's body as parsed */
    readonly body: unknown,
    what: string,
  ) {
    super(`${what} answered ${status}${code ? ` ${code}` : ''}: ${messageOf(body) ?? 'no message'}`)
  }
}

/** No answer came: the server refused connections for the whole wait, or the connection failed. */
export class SlipwayUnreachableError extends Error {
  override readonly name = 'SlipwayUnreachableError'
  constructor(readonly url: string, message: string, override readonly cause?: unknown) {
    super(message)
  }
}

/** The error envelope's message: `{ message }`, `{ error: { message } }` or `{ error: "..." }`. */
function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return typeof body === 'string' && body ? body.slice(0, 300) : undefined
  const b = body as { message?: unknown; error?: unknown }
  if (typeof b.message === 'string') return b.message
  if (typeof b.error === 'string') return b.error
  if (b.error && typeof b.error === 'object' && typeof (b.error as { message?: unknown }).message === 'string') return (b.error as { message: string }).message
  return undefined
}

function codeOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined
  const b = body as { code?: unknown; error?: unknown }
  if (typeof b.code === 'string') return b.code
  if (b.error && typeof b.error === 'object' && typeof (b.error as { code?: unknown }).code === 'string') return (b.error as { code: string }).code
  return undefined
}

/**
 * The answer's data, or a thrown `SlipwayError` naming the call, the status, the envelope's
 * code and its message:
 *
 *   const wallet = orThrow(await slipway.api.POST('/v1/wallets/', { body: { chain: 'ethereum', isTestnet: true } }))
 */
export function orThrow<T>(res: { data?: T; error?: unknown; response: Response }): T {
  if (res.error === undefined && res.response.ok) return res.data as T
  const call = (res.response as Response & { [CALL]?: string })[CALL] ?? (res.response.url ? new URL(res.response.url).pathname : 'the call')
  throw new SlipwayError(res.response.status, codeOf(res.error), res.error, call)
}

/** `METHOD /path` of the request a response answers (openapi-fetch's result keeps no request), set by `waitingFetch`. */
const CALL = Symbol('slipway.call')

/** The system error code of a failed fetch: Bun sets `code`, Node's undici sets it on `cause`. */
function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } }
  const code = e?.code ?? e?.cause?.code ?? e?.cause?.errors?.[0]?.code
  return typeof code === 'string' ? code : undefined
}

/** Refused before anything was sent: the request never reached a server, so sending it again is safe. */
const REFUSED = new Set(['ECONNREFUSED', 'ConnectionRefused'])

export interface WaitOptions {
  /** how long to keep trying while connections are refused (a server restarting), in ms; 0: not at all */
  waitForServerMs: number
  /** told once per call that had to wait, e.g. to print "waiting for Slipway" */
  onWait?: (info: { url: string; waitForServerMs: number }) => void
}

/**
 * `send`, waiting for a server that refuses connections (stopped, or restarting): the request
 * is sent again after 100 ms, then twice as long each time up to 2 s, for at most
 * `waitForServerMs`. Any other failure, or a refusal past the wait, throws one
 * `SlipwayUnreachableError` whose message is one line saying what to check.
 */
export function waitingFetch(send: (request: Request) => Promise<Response>, opts: WaitOptions) {
  return async (request: Request): Promise<Response> => {
    const started = Date.now()
    let delay = 100
    let told = false
    for (;;) {
      // the body is read once per send: a copy for the next attempt
      const copy = request.clone()
      try {
        const response = await send(request)
        Object.defineProperty(response, CALL, { value: `${request.method} ${new URL(request.url).pathname}` })
        return response
      } catch (err) {
        const code = errorCode(err)
        const origin = new URL(request.url).origin
        if (!code || !REFUSED.has(code)) {
          throw new SlipwayUnreachableError(request.url, `${request.method} ${request.url}: no answer (${code ?? (err as Error)?.message ?? err})`, err)
        }
        if (Date.now() - started + delay > opts.waitForServerMs) {
          const waited = opts.waitForServerMs ? ` for ${Math.round((Date.now() - started) / 1000)} s` : ''
          throw new SlipwayUnreachableError(request.url, `Slipway at ${origin} refused the connection${waited}: is it running? (npm start)`, err)
        }
        if (!told) opts.onWait?.({ url: origin, waitForServerMs: opts.waitForServerMs })
        told = true
        await new Promise((r) => setTimeout(r, delay))
        delay = Math.min(delay * 2, 2_000)
        request = copy
      }
    }
  }
}
