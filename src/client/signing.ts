/**
 * The tenant signature: the string a request's signature
 * covers, the `x-signature` HMAC, timestamps that never repeat a signature, and the
 * openapi-fetch middleware that signs every operation the document marks tenant-signed.
 * Part of the client (index.ts hands it on).
 */
import { createHash, createHmac } from 'node:crypto'
import type { Middleware } from 'openapi-fetch'
import { operationCredentials } from './api-types'

export interface TenantCredentials {
  apiKey: string
  apiSecret: string
}

/** `METHOD\nPATH?QUERY\nTIMESTAMP\nhex(SHA-256(body))`: what the tenant signature covers. */
export function signingString(method: string, pathWithQuery: string, body: string | Uint8Array, timestamp: string): string {
  return `${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${createHash('sha256').update(body).digest('hex')}`
}

/** The `x-signature` header: hex HMAC-SHA256 of the signing string with the tenant's API secret. */
export function sign(apiSecret: string, method: string, pathWithQuery: string, body: string | Uint8Array, timestamp: string): string {
  return createHmac('sha256', apiSecret).update(signingString(method, pathWithQuery, body, timestamp)).digest('hex')
}

/** The three headers of a tenant-signed request. `body` must be the exact bytes sent. */
export function signedHeaders(tenant: TenantCredentials, method: string, pathWithQuery: string, body: string | Uint8Array, timestamp: string) {
  return { 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': timestamp, 'x-signature': sign(tenant.apiSecret, method, pathWithQuery, body, timestamp) }
}

/** The path and query of a URL as sent, which the server signs over (no normalising). */
export function pathWithQuery(url: string): string {
  return url.slice(url.indexOf('/', url.indexOf('//') + 2))
}

/** `'POST /v1/auth/login'` → what the document says the operation takes. */
export function credentialsOf(method: string, schemaPath: string) {
  return operationCredentials[`${method.toUpperCase()} ${schemaPath}`]
}

/** Signs `request` in place (the body is read from a clone, so it is still sent). */
export async function signRequest(request: Request, tenant: TenantCredentials, timestamp: string): Promise<Request> {
  const body = new Uint8Array(await request.clone().arrayBuffer())
  for (const [name, value] of Object.entries(signedHeaders(tenant, request.method, pathWithQuery(request.url), body, timestamp))) request.headers.set(name, value)
  return request
}

/** The server accepts a timestamp this far from its clock, and each signature once within it. */
const SIGNATURE_WINDOW_S = 300
/** How far ahead of the clock a timestamp may be moved to keep a signature unique. */
const MAX_SKEW_S = 60

/**
 * Timestamps that never repeat a signature. The server accepts each signature once in its
 * 300-second window, and two identical requests (same method, path and body) signed in the
 * same second sign the same string: the second would answer `401 Replay detected`. The
 * second gets the next free second instead (at most a minute ahead of the clock, well inside
 * the window), so a client may send the same request twice at once, e.g. two logins.
 */
export class SignatureClock {
  /** request (method, path, body hash) → the seconds already signed for it in the window */
  private readonly used = new Map<string, Set<number>>()

  constructor(private readonly now: () => number = Date.now) {}

  /** The timestamp to sign `method path body` with now. */
  next(method: string, pathWithQuery: string, body: string | Uint8Array): string {
    const nowS = Math.floor(this.now() / 1000)
    this.forgetBefore(nowS - SIGNATURE_WINDOW_S)
    const key = signingString(method, pathWithQuery, body, '')
    const seconds = this.used.get(key) ?? new Set<number>()
    let ts = nowS
    while (seconds.has(ts) && ts < nowS + MAX_SKEW_S) ts++
    seconds.add(ts)
    this.used.set(key, seconds)
    return String(ts)
  }

  private forgetBefore(oldest: number) {
    for (const [key, seconds] of this.used) {
      for (const s of seconds) if (s < oldest) seconds.delete(s)
      if (!seconds.size) this.used.delete(key)
    }
  }
}

/** Times a request refused as a replay is signed again with a later second. */
const REPLAY_RETRIES = 5
const isReplayRefusal = async (res: Response) => res.status === 401 && (await res.clone().text()).includes('Replay detected')

/**
 * openapi-fetch middleware: signs every operation the document marks tenant-signed, unless
 * the call set its own `x-signature`. `now` is the clock for the timestamp, in ms; identical
 * requests in one second get distinct timestamps (`SignatureClock`).
 */
export function tenantSignature(tenant: TenantCredentials, now: (() => number) | SignatureClock = Date.now): Middleware {
  const clock = now instanceof SignatureClock ? now : new SignatureClock(now)
  // bodies of the calls this middleware signed, to sign again after a replay refusal
  const bodies = new Map<string, Uint8Array>()
  return {
    async onRequest({ request, schemaPath, id }) {
      const kind = credentialsOf(request.method, schemaPath)
      if ((kind !== 'tenant' && kind !== 'both') || request.headers.has('x-signature')) return
      const body = new Uint8Array(await request.clone().arrayBuffer())
      bodies.set(id, body)
      return signRequest(request, tenant, clock.next(request.method, pathWithQuery(request.url), body))
    },
    async onResponse({ request, response, id, options }) {
      const body = bodies.get(id)
      bodies.delete(id)
      // Another process (or client) with the same credentials signed the same request in the
      // same second: the server refused it before doing anything, so it is safe to sign it
      // again with the next free second (a few times: the other may have taken that one too).
      let answer = response
      for (let tries = 0; tries < REPLAY_RETRIES && body && await isReplayRefusal(answer); tries++) {
        const again = new Request(request.url, { method: request.method, headers: request.headers, body: body.byteLength ? new Blob([body as Uint8Array<ArrayBuffer>]) : undefined })
        const path = pathWithQuery(request.url)
        for (const [name, value] of Object.entries(signedHeaders(tenant, request.method, path, body, clock.next(request.method, path, body)))) again.headers.set(name, value)
        answer = await options.fetch(again)
      }
      return answer === response ? undefined : answer
    },
    onError: ({ id }) => { bodies.delete(id) },
  }
}
