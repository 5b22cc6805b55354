/**
 * One delivery attempt over the network, safe against server-side request forgery:
 * the host is resolved at every attempt, every A and AAAA address must be public,
 * and the connection goes to the address checked (no second lookup an attacker's
 * DNS could answer differently), with the certificate verified for the hostname.
 * Redirects are not followed; the answer body is never read.
 */
import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'
import type { Deps } from '../../deps'
import { isPublicAddress, isReservedName } from './address'
import { findDevRoute } from './repo'
import type { WebhookEnvironment } from './schema'

export const ANSWER_TIMEOUT_MS = 10_000

export interface AttemptOutcome {
  ok: boolean
  statusCode: number | null
  error: string | null
}

/** Every A and AAAA address of a host, through the system resolver. */
export async function resolveHost(host: string): Promise<string[]> {
  const found = await lookup(host, { all: true, verbatim: true })
  return found.map((a) => a.address)
}

export interface PinnedRequest {
  address: string
  /** 443 in production; tests of the TLS path use a local port */
  port?: number
  hostname: string
  pathAndQuery: string
  headers: Record<string, string>
  body?: string
  /** POST unless told (an x402 resource is fetched with GET) */
  method?: string
  /** extra trusted CA (PEM), only for tests of the TLS path */
  ca?: string
  timeoutMs?: number
}

/** Sends to `address` (POST unless `method` says) while verifying the certificate for `hostname` (SNI and Host too). */
export async function postPinned(req: PinnedRequest): Promise<Response> {
  const ip = ipaddr.parse(req.address)
  const hostPart = ip.kind() === 'ipv6' ? `[${ip.toString()}]` : ip.toString()
  const port = req.port && req.port !== 443 ? `:${req.port}` : ''
  return fetch(`https://${hostPart}${port}${req.pathAndQuery}`, {
    method: req.method ?? 'POST',
    headers: { ...req.headers, host: req.hostname },
    body: req.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(req.timeoutMs ?? ANSWER_TIMEOUT_MS),
    tls: { serverName: req.hostname, rejectUnauthorized: true, ...(req.ca ? { ca: req.ca } : {}) },
  } as RequestInit)
}

/** Whose delivery an attempt is: a stored development route serves only its own tenant's sandbox. */
export interface DeliveryOwner {
  tenantId: string
  environment: WebhookEnvironment
}

/**
 * The origin a development route sends this attempt to, or undefined for the production
 * path. WEBHOOK_DEV_ROUTES (refused at start-up under NODE_ENV=production) applies to
 * every delivery; a route stored by `slipway webhooks listen` only to the sandbox
 * deliveries of the tenant that stored it, never under NODE_ENV=production, and only for
 * a host under a reserved top-level domain (which the production path could never reach,
 * so no real delivery pays for the lookup).
 */
export async function devRouteOrigin(deps: Deps, host: string, owner?: DeliveryOwner): Promise<string | undefined> {
  const configured = deps.config.webhookDevRoutes[host]
  if (configured) return configured
  if (!owner || owner.environment !== 'sandbox' || deps.config.nodeEnv === 'production' || !isReservedName(host)) return undefined
  return (await findDevRoute(deps.database.db, owner.tenantId, host))?.origin
}

export async function attemptDelivery(deps: Deps, url: string, headers: Record<string, string>, body: string, owner?: DeliveryOwner): Promise<AttemptOutcome> {
  const target = new URL(url)
  let res: Response
  try {
    const devOrigin = await devRouteOrigin(deps, target.hostname, owner)
    if (devOrigin) {
      // A development route: only the connection target changes (signing, retries and the log stay the production path).
      res = await fetch(devOrigin + target.pathname + target.search, {
        method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      })
    } else {
      let address: string
      try {
        address = await publicAddressOf(deps, target.hostname)
      } catch (err) {
        if (err instanceof OutboundRefused) return {
          ok: false,
          statusCode: null,
          error: err.reason === 'unresolved' ? 'the host did not resolve' : 'address refused: the host resolves to a non-public address',
        }
        throw err
      }
      res = await postPinned({ address, hostname: target.hostname, pathAndQuery: target.pathname + target.search, headers, body })
    }
  } catch (err) {
    const e = err as Error
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return { ok: false, statusCode: null, error: 'no answer within 10 seconds' }
    return { ok: false, statusCode: null, error: `connection failed: ${(e.message ?? String(err)).slice(0, 200)}` }
  }
  // The body is not read; cancelling frees the connection.
  await res.body?.cancel().catch(() => {})
  if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, error: null }
  return { ok: false, statusCode: res.status, error: res.status >= 300 && res.status < 400 ? `redirect ${res.status} not followed` : `answered ${res.status}` }
}

/** Why an outbound request was not sent: the address broke the delivery rules at the time of the call. */
export class OutboundRefused extends Error {
  constructor(readonly reason: 'unresolved' | 'not_public', message: string) {
    super(message)
    this.name = 'OutboundRefused'
  }
}

/** The address a host resolves to now, when every one of its A and AAAA addresses is public; throws OutboundRefused. */
async function publicAddressOf(deps: Deps, host: string): Promise<string> {
  let addresses: string[]
  try {
    addresses = await (deps.resolveHost ?? resolveHost)(host)
  } catch {
    throw new OutboundRefused('unresolved', `The host ${host} did not resolve`)
  }
  if (!addresses.length) throw new OutboundRefused('unresolved', `The host ${host} did not resolve`)
  if (!addresses.every(isPublicAddress)) throw new OutboundRefused('not_public', `The host ${host} resolves to a non-public address`)
  return addresses[0]!
}

/**
 * One request to an address already checked by `normalizeWebhookUrl`, by the rules of a delivery:
 * the host resolved now, every address public, the connection pinned to the address checked,
 * redirects never followed (the caller sees the 3xx). WEBHOOK_DEV_ROUTES sends a listed host to
 * its local origin (refused at start-up under NODE_ENV=production). Used by the agent payments'
 * x402 rail to fetch a paid resource. Throws `OutboundRefused`, or fetch's own errors (a
 * `TimeoutError` after `timeoutMs`).
 */
export async function fetchPublic(deps: Deps, url: string, req: { method: string; headers: Record<string, string>; timeoutMs: number }): Promise<Response> {
  const target = new URL(url)
  const devOrigin = deps.config.webhookDevRoutes[target.hostname]
  if (devOrigin) {
    return fetch(devOrigin + target.pathname + target.search, { method: req.method, headers: req.headers, redirect: 'manual', signal: AbortSignal.timeout(req.timeoutMs) })
  }
  const address = await publicAddressOf(deps, target.hostname)
  return postPinned({ method: req.method, address, hostname: target.hostname, pathAndQuery: target.pathname + target.search, headers: req.headers, timeoutMs: req.timeoutMs })
}
