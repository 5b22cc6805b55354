/**
 * The embedded sandbox card onramp provider (CARD_ONRAMP_SANDBOX=embedded, on by default like
 * the bank ramp simulator, never served under NODE_ENV=production unless SANDBOX_IN_PRODUCTION):
 * Stripe's crypto onramp protocol under `/sandbox/card-onramp`, for tenants whose sandbox names
 * no provider address.
 *
 * - `POST /v1/crypto/onramp_sessions`, `GET /v1/crypto/onramp_sessions/{id}` as Stripe answers
 *   them (form-encoded requests, `Authorization: Bearer <key>`); each tenant is its own account,
 *   its key and webhook secret derived from the server secret (`credentials`).
 * - `GET /session/{id}`: the hosted page a session's `redirect_url` opens, with buttons;
 *   `POST /session/{id}/{pay|complete|reject|fail}` moves the session (`pay`: payment taken,
 *   `fulfillment_processing`; `complete`: the crypto delivered, `fulfillment_complete`, and on
 *   the devnet the wallet is credited with the test stablecoin; `reject`: `rejected`; `fail`: the
 *   payment reversed while processing, back to `requires_payment`) and sends the signed
 *   `crypto.onramp_session_updated` event to the tenant's webhook address, as Stripe does.
 * Sessions live in memory (at most 10,000, oldest forgotten first). Given a persistence (Slipway's
 * database, repo.ts), they are also kept across restarts, and so is what the provider
 * still owes Slipway, as the bank ramp simulator keeps its deposits (bank-ramp/deposit-run.ts):
 *
 * - every change is saved, marked `pending`, before its event is posted, and unmarked once
 *   Slipway answered 2xx; a restart posts the pending ones again (Slipway may see an event
 *   twice, never not at all; its handler takes a repeated event as a no-op);
 * - `complete` on the devnet saves the session as `completing`, and the transfer is signed and
 *   saved before it is broadcast (funded-sender.ts `deliverStablecoin`): a restart finishes it,
 *   finding the same transfer on chain or sending the same bytes again, never a second payment;
 * - `resume()` (called where background work runs) does both at start.
 */
import { createHmac, randomBytes } from 'node:crypto'
import type { SignedTransfer, StablecoinSender } from '../../adapters/chain/funded-sender'
import type { OnrampSession } from '../../adapters/card-onramp/stripe'
import { lazy } from '../../lib/lazy'
import type { CardSandboxPersistence } from './repo'

const adapter = lazy(() => import('../../adapters/card-onramp/stripe'))
const signEvent = async (raw: string, secret: string, at: number) => (await adapter()).signEvent(raw, secret, at)
import { safeEqual } from '../../lib/crypto'

export const CARD_SANDBOX_PATH = '/sandbox/card-onramp'
const MAX_SESSIONS = 10_000

/**
 * `completing`: its stablecoin is being sent (a second `complete` meanwhile is refused, so nothing
 * is sent twice); `signed`: that transfer, saved before its broadcast; `pending`: its last change
 * may not have reached Slipway yet.
 */
interface Stored { tenantId: string; session: OnrampSession; completing?: boolean; signed?: SignedTransfer; pending?: boolean }

export function sandboxCredentials(secret: Uint8Array, tenantId: string) {
  const mac = (label: string) => createHmac('sha256', secret).update(`card-onramp-sandbox:${label}:${tenantId}`).digest('hex')
  return { apiKey: `sk_test_slipway_${tenantId}_${mac('api').slice(0, 32)}`, webhookKey: `whsec_${mac('webhook').slice(0, 40)}` }
}

export interface CardSandboxOptions {
  secret: Uint8Array
  publicBaseUrl: string
  /** on the devnet: pays the destination amount in the test stablecoin at `complete` */
  chain?: StablecoinSender
  /** keeps the sessions and what they owe Slipway across restarts; without it a restart forgets them */
  persistence?: CardSandboxPersistence
}

export function createCardSandbox(opts: CardSandboxOptions) {
  const sessions = new Map<string, Stored>()
  const persistence = opts.persistence
  let loading: Promise<void> | undefined
  /** loads the kept sessions once, before the first request; a failed load is tried again by the next one */
  const ready = (): Promise<void> => {
    if (!persistence) return Promise.resolve()
    loading ??= persistence.load().then((saved) => {
      for (const x of saved) if (!sessions.has(x.session.id)) sessions.set(x.session.id, { tenantId: x.tenantId, session: x.session, signed: x.signed, pending: x.pending, completing: undefined })
      // those that were completing when the process stopped: finished by resume()
      for (const x of saved) if (x.completing) interrupted.add(x.session.id)
    }, (err) => {
      loading = undefined
      throw err
    })
    return loading
  }
  const interrupted = new Set<string>()
  const save = (s: Stored) => persistence?.save({ tenantId: s.tenantId, session: s.session, pending: !!s.pending, completing: !!s.completing, signed: s.signed }) ?? Promise.resolve()
  let appHandle: ((r: Request) => Promise<Response>) | undefined
  const json = (body: unknown, status = 200) => Response.json(body, { status })
  const stripeError = (status: number, type: string, message: string) => json({ error: { type, message } }, status)

  const tenantOfKey = (auth: string | null) => {
    const key = auth?.startsWith('Bearer ') ? auth.slice(7) : auth?.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(':')[0] : undefined
    const m = /^sk_test_slipway_([0-9a-f-]{36})_[0-9a-f]{32}$/.exec(key ?? '')
    return m && safeEqual(sandboxCredentials(opts.secret, m[1]!).apiKey, key!) ? m[1]! : null
  }

  async function deliver(tenantId: string, session: OnrampSession) {
    const event = {
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      type: 'crypto.onramp_session_updated',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: session },
    }
    const raw = JSON.stringify(event)
    const req = new Request(`${opts.publicBaseUrl}/v1/ramp/card/webhooks/sandbox/${tenantId}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': await signEvent(raw, sandboxCredentials(opts.secret, tenantId).webhookKey, Date.now()) }, body: raw,
    })
    const res = await (appHandle ? appHandle(req) : fetch(req))
    return res.status
  }

  async function move(s: Stored, action: string): Promise<string | null> {
    const cur = s.session.status
    if (action === 'pay' && (cur === 'initialized' || cur === 'requires_payment')) s.session.status = 'fulfillment_processing'
    else if (action === 'reject' && (cur === 'initialized' || cur === 'requires_payment')) s.session.status = 'rejected'
    else if (action === 'fail' && cur === 'fulfillment_processing') s.session.status = 'requires_payment'
    else if (action === 'complete' && cur === 'fulfillment_processing' && !s.completing) await complete(s)
    else return s.completing ? `The session is being completed` : `A ${cur} session cannot ${action}`
    return null
  }

  /** Pays the destination amount (devnet) and marks the session complete; saved as it goes (see the top). */
  async function complete(s: Stored) {
    const d = s.session.transaction_details!
    s.completing = true
    try {
      await save(s)
      if (opts.chain && d.wallet_address && d.destination_currency === 'usdc') {
        // the decimal text read exactly (6 decimals), never through a float; viem loaded here, not at start (tests/ops/lazy-loading)
        const { parseUnits } = await import('viem')
        const record = async (signed: SignedTransfer) => {
          s.signed = signed
          await save(s)
        }
        const { hash, success } = await opts.chain.deliverStablecoin(d.wallet_address, parseUnits(d.destination_amount ?? '0', 6), { signed: s.signed, record })
        if (!success) throw new Error('transfer reverted')
        d.transaction_id = hash
      } else {
        d.transaction_id ??= `0x${randomBytes(32).toString('hex')}`
      }
      s.session.status = 'fulfillment_complete'
    } finally {
      s.completing = false
    }
  }

  /** Saves the change as pending, posts its event, and unmarks it once Slipway took it (2xx). */
  async function report(s: Stored): Promise<number> {
    s.pending = true
    await save(s)
    const status = await deliver(s.tenantId, structuredClone(s.session))
    if (status >= 200 && status < 300) {
      s.pending = false
      await save(s)
    }
    return status
  }

  function page(s: Stored) {
    const d = s.session.transaction_details ?? {}
    const buttons = ['pay', 'complete', 'reject', 'fail']
      .map((a) => `<form method="post" action="${CARD_SANDBOX_PATH}/session/${s.session.id}/${a}"><button>${a}</button></form>`).join('')
    const from = `${d.source_amount ?? '?'} ${d.source_currency ?? ''}`
    const to = `${d.destination_amount ?? '?'} ${d.destination_currency ?? ''} on ${d.destination_network ?? ''}`
    return new Response(`<!doctype html><meta charset="utf-8"><title>Sandbox card onramp</title><h1>Sandbox card onramp</h1>
<p>Session <code>${s.session.id}</code>: <strong>${s.session.status}</strong></p>
<p>${from} → ${to} to <code>${d.wallet_address ?? ''}</code></p>${buttons}`, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  }

  async function handle(req: Request): Promise<Response> {
    await ready()
    const url = new URL(req.url)
    const path = url.pathname.slice(CARD_SANDBOX_PATH.length)
    if (path === '/v1/crypto/onramp_sessions' && req.method === 'POST') {
      const tenantId = tenantOfKey(req.headers.get('authorization'))
      if (!tenantId) return stripeError(401, 'invalid_request_error', 'Invalid API Key provided')
      const form = new URLSearchParams(await req.text())
      const network = form.get('destination_network') ?? 'ethereum'
      const wallet = form.get(`wallet_addresses[${network}]`)
      if (!wallet) return stripeError(400, 'invalid_request_error', 'wallet_addresses is required')
      const sourceAmount = form.get('source_amount')
      const destinationAmount = form.get('destination_amount') ?? (sourceAmount ? (Number(sourceAmount) * 0.97).toFixed(2) : '100.00')
      const id = `cos_${randomBytes(12).toString('hex')}`
      const metadata: Record<string, string> = {}
      for (const [k, v] of form) if (k.startsWith('metadata[')) metadata[k.slice(9, -1)] = v
      const session: OnrampSession = {
        id, object: 'crypto.onramp_session', client_secret: `${id}_secret_${randomBytes(16).toString('hex')}`, created: Math.floor(Date.now() / 1000), livemode: false,
        status: 'initialized', redirect_url: `${opts.publicBaseUrl}${CARD_SANDBOX_PATH}/session/${id}`, metadata,
        transaction_details: {
          destination_currency: form.get('destination_currency') ?? 'usdc', destination_network: network, destination_amount: destinationAmount,
          source_amount: sourceAmount ?? (Number(destinationAmount) / 0.97).toFixed(2), source_currency: form.get('source_currency') ?? 'eur',
          wallet_address: wallet, transaction_id: null, fees: { network_fee_amount: '0.01', transaction_fee_amount: '2.50' },
        },
      }
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!)
      const stored: Stored = { tenantId, session }
      sessions.set(id, stored)
      await save(stored)
      if (persistence && sessions.size % 100 === 0) await persistence.trim(MAX_SESSIONS)
      return json(session)
    }
    const api = /^\/v1\/crypto\/onramp_sessions\/([A-Za-z0-9_]+)$/.exec(path)
    if (api && req.method === 'GET') {
      const tenantId = tenantOfKey(req.headers.get('authorization'))
      if (!tenantId) return stripeError(401, 'invalid_request_error', 'Invalid API Key provided')
      const s = sessions.get(api[1]!)
      return s && s.tenantId === tenantId ? json(s.session) : stripeError(404, 'invalid_request_error', 'No such crypto onramp session')
    }
    const hosted = /^\/session\/([A-Za-z0-9_]+)(?:\/(pay|complete|reject|fail))?$/.exec(path)
    if (hosted) {
      const s = sessions.get(hosted[1]!)
      if (!s) return new Response('Unknown session', { status: 404 })
      if (!hosted[2]) return req.method === 'GET' ? page(s) : new Response('Method not allowed', { status: 405 })
      if (req.method !== 'POST') return new Response('Method not allowed', { status: 405 })
      const refused = await move(s, hosted[2])
      if (refused) return json({ error: { type: 'invalid_request_error', message: refused } }, 409)
      const delivered = await report(s)
      if ((req.headers.get('accept') ?? '').includes('text/html')) return new Response(null, { status: 303, headers: { location: `${CARD_SANDBOX_PATH}/session/${s.session.id}` } })
      return json({ status: s.session.status, delivered })
    }
    return new Response('Not found', { status: 404 })
  }

  return {
    apiBaseUrl: `${opts.publicBaseUrl}${CARD_SANDBOX_PATH}`,
    fetch: handle,
    credentials: (tenantId: string) => sandboxCredentials(opts.secret, tenantId),
    /** the provider's fetch, in process: the adapter reaches it without a network hop */
    providerFetch: ((input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init))) as typeof fetch,
    /** sends the event of a session again (tests: a replayed provider event) */
    redeliver: async (id: string) => {
      const s = sessions.get(id)
      return s ? deliver(s.tenantId, structuredClone(s.session)) : 404
    },
    attach(h: (r: Request) => Promise<Response>) {
      appHandle = h
    },
    /**
     * What a stopped process left owed, done again (the kept sessions loaded first): deliveries
     * that were being completed are finished (the saved transfer, never a second one), and
     * events Slipway may not have received are posted again. Answers how many sessions.
     */
    async resume(): Promise<number> {
      await ready()
      let n = 0
      for (const s of [...sessions.values()]) {
        const wasCompleting = interrupted.delete(s.session.id)
        if (!wasCompleting && !s.pending) continue
        if (wasCompleting && s.session.status === 'fulfillment_processing' && !s.completing) await complete(s)
        await report(s)
        n++
      }
      return n
    },
  }
}

export type CardSandbox = ReturnType<typeof createCardSandbox>
