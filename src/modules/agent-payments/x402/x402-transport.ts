/**
 * How the x402 rail reaches a paid resource: the fetch function handed to `@x402/fetch`. Every
 * request (the first, and the one carrying the payment) goes out by the rules of a webhook
 * delivery (webhooks/transport.ts `fetchPublic`: the host resolved at each call, public addresses
 * only, WEBHOOK_DEV_ROUTES for local origins outside production), within
 * AGENT_PAYMENTS_X402_TIMEOUT_MS. Redirects on the resource's own origin are followed (3 at
 * most, each address checked again); one to another host stops the payment. Answers are read
 * up to a bound: 64 KiB for a `402` (its requirements), AGENT_PAYMENTS_X402_MAX_BODY_BYTES for
 * the resource itself, which the execution keeps.
 */
import type { Deps } from '../../../deps'
import { AddressRefused, checkSubscriptionUrl, fetchPublic, OutboundRefused } from '../../webhooks'

/** A stop on the way to the resource, before or after paying: a code for the execution's failureReason. */
export class X402Stop extends Error {
  constructor(readonly code: string, message: string) {
    super(message)
    this.name = 'X402Stop'
  }
}

/** One answer of the resource, as read (bounded). */
export interface ResourceAnswer {
  status: number
  contentType: string | null
  /** the answer's size in bytes: its content-length when it was cut, else what was read */
  size: number
  truncated: boolean
  bytes: Uint8Array
}

/** the bound on a 402's body: its JSON requirements, never a resource */
const REQUIREMENTS_BYTES = 65_536
const MAX_REDIRECTS = 3
const NULL_BODY = [101, 204, 205, 304]

/** Reads at most `limit` bytes of the body, cancelling the rest. */
async function readBounded(res: Response, limit: number): Promise<Omit<ResourceAnswer, 'status' | 'contentType'>> {
  const reader = res.body?.getReader()
  if (!reader) return { size: 0, truncated: false, bytes: new Uint8Array() }
  const chunks: Uint8Array[] = []
  let kept = 0
  let total = 0
  let truncated = false
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (kept < limit) {
      const part = value.subarray(0, limit - kept)
      chunks.push(part)
      kept += part.length
    }
    if (total > limit) {
      truncated = true
      await reader.cancel().catch(() => {})
      break
    }
  }
  const bytes = new Uint8Array(kept)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.length
  }
  const declared = Number(res.headers.get('content-length'))
  return { size: truncated && Number.isSafeInteger(declared) && declared > total ? declared : total, truncated, bytes }
}

/**
 * The fetch `@x402/fetch` wraps, for one execution's resource: GET only, whatever URL the
 * library passes must be on the resource's origin. `seen` hears every final answer (the last
 * one is the resource's).
 */
export function resourceFetch(deps: Deps, resourceUrl: string, seen: (answer: ResourceAnswer) => void): typeof fetch {
  const timeoutMs = deps.config.agentPaymentsX402TimeoutMs
  const origin = new URL(resourceUrl).origin
  const call = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init)
    let url = request.url
    if (new URL(url).origin !== origin) throw new X402Stop('X402_ADDRESS_REFUSED', 'The payment client asked for another origin than the resource\'s')
    const headers: Record<string, string> = { 'user-agent': 'Slipway-x402' }
    request.headers.forEach((value, name) => { headers[name] = value })
    for (let hop = 0; ; hop++) {
      let res: Response
      try {
        res = await fetchPublic(deps, url, { method: 'GET', headers, timeoutMs })
      } catch (err) {
        if (err instanceof OutboundRefused) throw new X402Stop('X402_ADDRESS_REFUSED', err.message)
        const e = err as Error
        if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new X402Stop('X402_RESOURCE_TIMEOUT', `The resource did not answer within ${timeoutMs} ms`)
        throw new X402Stop('X402_RESOURCE_UNREACHABLE', `The resource could not be reached: ${(e.message ?? String(err)).slice(0, 200)}`)
      }
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel().catch(() => {})
        const location = res.headers.get('location')
        const next = location ? new URL(location, url) : null
        if (!next || next.origin !== origin) throw new X402Stop('X402_REDIRECT_REFUSED', `The resource redirected to ${next ? next.host : 'no address'}: only redirects on its own host are followed`)
        if (hop + 1 >= MAX_REDIRECTS) throw new X402Stop('X402_REDIRECT_REFUSED', `The resource redirected more than ${MAX_REDIRECTS} times`)
        try {
          url = checkSubscriptionUrl(deps, next.href)
        } catch (err) {
          if (err instanceof AddressRefused) throw new X402Stop('X402_ADDRESS_REFUSED', `The resource redirected to an address refused: ${err.message}`)
          throw err
        }
        continue
      }
      let read: Awaited<ReturnType<typeof readBounded>>
      try {
        read = await readBounded(res, res.status === 402 ? REQUIREMENTS_BYTES : deps.config.agentPaymentsX402MaxBodyBytes)
      } catch (err) {
        const e = err as Error
        if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new X402Stop('X402_RESOURCE_TIMEOUT', `The resource did not finish its answer within ${timeoutMs} ms`)
        throw new X402Stop('X402_RESOURCE_UNREACHABLE', `The resource's answer broke off: ${(e.message ?? String(err)).slice(0, 200)}`)
      }
      seen({ status: res.status, contentType: res.headers.get('content-type'), ...read })
      return new Response(NULL_BODY.includes(res.status) ? null : (read.bytes as Uint8Array<ArrayBuffer>), { status: res.status, statusText: res.statusText, headers: res.headers })
    }
  }
  return call as typeof fetch
}

const TEXTUAL = /^(text\/|application\/(json|xml|[a-z0-9.+-]*\+(json|xml))|application\/javascript)/i

/** The resource's answer as the execution keeps it: text when its type is textual and it decodes, else base64. */
export function keptAnswer(a: ResourceAnswer) {
  let body: string | null = null
  if (a.contentType && TEXTUAL.test(a.contentType)) {
    try {
      body = new TextDecoder('utf-8', { fatal: true }).decode(a.bytes)
    } catch {
      body = null
    }
  }
  return {
    status: a.status, contentType: a.contentType, size: a.size, truncated: a.truncated,
    body, bodyBase64: body === null && a.bytes.length ? Buffer.from(a.bytes).toString('base64') : null,
  }
}
