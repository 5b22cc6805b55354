/**
 * The bank ramp sandbox simulator: a small app that speaks the partner's protocol
 * (src/adapters/bank-ramp/port.ts) so a self-hoster can run the whole flow on one machine,
 * and tests can drive the real adapter over HTTP.
 *
 * - `X-Api-Key` selects a simulator account (`accounts`); anything else answers 401.
 * - `POST /v1/onboarding/{CustomerID}` answers a hosted page address. Opening the page
 *   makes the customer known (`Pending`); its buttons approve, decline or ask for more
 *   information. Each change is posted as a `Customer` webhook.
 * - `POST /v1/workflows/bank-deposit-to-onchain-address` gives an approved customer a
 *   virtual IBAN (valid ISO 13616 check digits) that converts to the stablecoin at an address.
 * - `POST /v1/sandbox/fiat-deposit/simulate` receives a transfer: the deposit is screened and
 *   settled, converted (1% channel fee, fixed rate) and the stablecoin is sent to the address
 *   from the simulator's own funded wallet when a chain is configured (recorded only
 *   otherwise). `FiatDeposit` and `Transaction` webhooks follow each step.
 * State lives in memory: a restart forgets the simulator's customers (the sandbox only).
 */
import { Elysia } from 'elysia'
import { randomUUID } from 'node:crypto'
import type {
  BankDepositToOnchainAddressResponse, PartnerAgreement, PartnerCustomer, PartnerEvent, PartnerFiatDeposit, PartnerPaymentMethod, PartnerTransaction,
} from '../../adapters/bank-ramp/port'
import { isValidIban, sandboxIban } from './iban'
import { signPartnerWebhook } from './signature'
import type { StablecoinSender as SimulatorChain } from '../../adapters/chain/funded-sender'

export interface SimulatorAccount {
  id: string
  /** where partner webhooks go, signed with `secret` */
  webhook?: { url: string; secret: string }
}

export interface SimulatorOptions {
  /** the account an API key opens, or null */
  accounts: (apiKey: string) => SimulatorAccount | null
  /** address the hosted pages are reached at by a browser (no trailing slash, including `basePath`) */
  publicUrl: () => string
  /** path the simulator is served under (`/sandbox/bank-ramp` when embedded in Slipway) */
  basePath?: string
  /** sends a webhook; `fetch` by default (the embedded simulator posts in process) */
  deliver?: (request: Request) => Promise<Response>
  /** the chain the stablecoin is sent on; recorded only when absent */
  chain?: SimulatorChain
  /** fixed EUR to stablecoin rate, as decimal text */
  rate?: string
  /** where customers send the stablecoin they sell (EVM networks); a fixed sandbox address by default */
  depositAddress?: string
  now?: () => number
}

interface Customer {
  id: string
  accountId: string
  type: 'Individual' | 'Business'
  /** false until the hosted page is opened: the partner does not know the customer before */
  started: boolean
  status: 'Pending' | 'Approved' | 'Declined'
  actionsRequired: string[]
  agreements: PartnerAgreement[]
  regions: Array<{ Entity: string; Status: string; Model: string; Created: string; Modified: string }>
  created: string
  version: number
}

interface Session { token: string; accountId: string; customerId: string; returnUrl: string; expiresAt: number }
interface Method { id: string; accountId: string; customerId: string; iban: string; fiat: string; crypto: string; network: string; address: string; ruleId: string }

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
const partnerError = (status: number, type: string, detail: string, request?: Record<string, unknown>) =>
  json({ Type: type, Detail: detail, Instance: randomUUID(), ...(request ? { Extensions: { Request: request } } : {}) }, status)
const html = (body: string, status = 200) => new Response(`<!doctype html><html><head><meta charset="utf-8"><title>Bank ramp sandbox</title></head><body>${body}</body></html>`, { status, headers: { 'content-type': 'text/html; charset=utf-8' } })
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const DECIMAL = /^\d{1,12}(\.\d{1,2})?$/
const DECIMAL6 = /^\d{1,12}(\.\d{1,6})?$/

/** Amount arithmetic in integer units: cents for fiat, 10^-6 for the stablecoin. */
function toUnits(dec: string, places: number): bigint {
  const [i, f = ''] = dec.split('.')
  return BigInt(i!) * 10n ** BigInt(places) + BigInt((f + '0'.repeat(places)).slice(0, places) || '0')
}
function fromUnits(v: bigint, places: number): string {
  const s = v.toString().padStart(places + 1, '0')
  return places ? `${s.slice(0, -places)}.${s.slice(-places)}` : s
}

/** Rounds a non-negative decimal up to `places` decimals, as text. */
function ceilUnits(num: bigint, den: bigint): bigint {
  return (num + den - 1n) / den
}

/** The sell channels the simulator offers: SEPA bank transfers in EUR, and a card channel whose form is never given out. */
const SEPA_COUNTRIES = ['AT', 'BE', 'DE', 'ES', 'FR', 'IE', 'IT', 'NL', 'PT']
const channelId = (n: number) => `0b5e1c9a-7d3f-4e21-9c4a-${String(n).padStart(12, '0')}`
const CHANNELS = [
  ...SEPA_COUNTRIES.map((country, i) => ({ ID: channelId(i + 1), PaymentMethodCategory: 'Bank', PaymentMethodType: 'BankSepa', FiatCurrency: 'EUR', Country: country })),
  { ID: channelId(900), PaymentMethodCategory: 'Card', PaymentMethodType: 'TokenizedCard', FiatCurrency: 'EUR', Country: 'DE' },
]
const PAYOUT_MIN = 1n * 100n
const PAYOUT_MAX = 15000n * 100n
/** EVM and Solana sandbox deposit addresses when none is configured */
const SANDBOX_DEPOSIT_EVM = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001'
const SANDBOX_DEPOSIT_SOLANA = '5a1eSandboxDeposit1111111111111111111111111'

/** The SEPA form: draft-07, as the partner's FormSchema. */
const SEPA_FIELDS: Record<string, Record<string, unknown>> = {
  AccountHolderName: { type: 'string', title: 'Account holder name', minLength: 1, maxLength: 140 },
  IBAN: { type: 'string', title: 'IBAN', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
  BIC: { type: 'string', title: 'BIC', pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$' },
}
const SEPA_REQUIRED = ['AccountHolderName', 'IBAN']

function sepaSchema(fields: string[], required: string[]) {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    title: 'SEPA bank account',
    properties: Object.fromEntries(fields.map((f) => [f, SEPA_FIELDS[f]])),
    required,
    additionalProperties: false,
  }
}

/** The reasons a filled SEPA form is refused, by field (empty: accepted). */
function sepaFormErrors(form: unknown, lacking: string[]): Record<string, string> {
  const errors: Record<string, string> = {}
  if (!form || typeof form !== 'object' || Array.isArray(form)) return { Form: 'required' }
  const f = form as Record<string, unknown>
  for (const k of Object.keys(f)) if (!SEPA_FIELDS[k]) errors[k] = 'not a field of this form'
  for (const k of lacking) if (f[k] === undefined) errors[k] = 'required'
  for (const [k, v] of Object.entries(f)) {
    const def = SEPA_FIELDS[k]
    if (!def) continue
    if (typeof v !== 'string') errors[k] = 'must be a string'
    else if (def.pattern && !new RegExp(def.pattern as string).test(v)) errors[k] = 'wrong format'
    else if (def.minLength && v.length < (def.minLength as number)) errors[k] = 'too short'
    else if (def.maxLength && v.length > (def.maxLength as number)) errors[k] = 'too long'
  }
  if (typeof f.IBAN === 'string' && !errors.IBAN && !isValidIban(f.IBAN)) errors.IBAN = 'check digits do not match'
  return errors
}

export function createBankRampSimulator(opts: SimulatorOptions) {
  const now = opts.now ?? (() => Date.now())
  const iso = () => new Date(now()).toISOString()
  const customers = new Map<string, Customer>()
  const sessions = new Map<string, Session>()
  const methods = new Map<string, Method>()
  const deposits = new Map<string, PartnerFiatDeposit & { accountId: string }>()
  const txs = new Map<string, PartnerTransaction & { accountId: string }>()
  const versions = new Map<string, number>()
  /** saved payout bank accounts: the partner's id holds the account number, as the partner's does */
  const payoutMethods = new Map<string, { id: string; accountId: string; customerId: string; fields: Record<string, string> }>()
  const formSessions = new Map<string, { id: string; accountId: string; customerId: string; channel: (typeof CHANNELS)[number]; fiat: string; crypto: string; fee: string; estimate: string; authorized: string; network: string; form: Record<string, string>; paymentMethodId?: string; expiresAt: number }>()
  const sells = new Map<string, string>()
  /** proven addresses by account and customer; the same address registered again keeps its id */
  const provenAddresses = new Map<string, { AddressID: string; Network: string; Address: string; Created: string; accountId: string; customerId: string }>()
  let nextAccount = 1
  const rate = opts.rate ?? '1.08'
  const deliver = opts.deliver ?? ((r: Request) => fetch(r))
  /** background work (webhooks, chain sends) still running, so tests and shutdown can wait */
  const pending = new Set<Promise<unknown>>()
  const key = (accountId: string, id: string) => `${accountId}:${id}`

  const track = (p: Promise<unknown>) => {
    pending.add(p)
    p.finally(() => pending.delete(p)).catch(() => {})
  }

  async function post(account: SimulatorAccount, type: PartnerEvent['EventType'], recordId: string, data: Record<string, unknown>, customerId?: string) {
    const hook = account.webhook
    const version = (versions.get(recordId) ?? 0) + 1
    versions.set(recordId, version)
    if (!hook) return
    const event: PartnerEvent = { EventType: type, EventVersion: version, Occurred: iso(), Data: data, UserID: customerId }
    const body = JSON.stringify(event)
    // a few quick retries: the receiver may be starting
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const res = await deliver(new Request(hook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'Webhook-Signature': signPartnerWebhook(hook.secret, body, Math.floor(now() / 1000)) },
          body,
        }))
        await res.body?.cancel()
        if (res.ok) return
      } catch { /* retried */ }
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)))
    }
  }

  const customerView = (c: Customer): PartnerCustomer => ({
    Type: c.type,
    CustomerID: c.id,
    Created: c.created,
    Verification: { Model: 'Standard', Status: c.status },
    Verifications: { Type: c.type, Status: c.status, EntityVerifications: c.regions },
    Agreements: c.agreements,
    ActionsRequired: c.actionsRequired,
  })

  function decide(c: Customer, account: SimulatorAccount, decision: string) {
    const at = iso()
    if (decision === 'approve') {
      c.status = 'Approved'
      c.actionsRequired = []
      c.agreements = [
        { Name: 'NoahTermsOfService', Version: 1, Accepted: true, AcceptedAt: at },
        { Name: 'NoahPrivacyPolicy', Version: 1, Accepted: true, AcceptedAt: at },
      ]
      c.regions = [{ Entity: 'NoahEU', Status: 'Approved', Model: 'Standard', Created: c.created, Modified: at }]
    } else if (decision === 'decline') {
      c.status = 'Declined'
      c.actionsRequired = []
      c.regions = [{ Entity: 'NoahEU', Status: 'Declined', Model: 'Standard', Created: c.created, Modified: at }]
    } else {
      c.status = 'Pending'
      c.actionsRequired = ['ProofOfAddress']
      c.regions = [{ Entity: 'NoahEU', Status: 'Pending', Model: 'Standard', Created: c.created, Modified: at }]
    }
    c.version++
    track(post(account, 'Customer', c.id, customerView(c) as unknown as Record<string, unknown>, c.id))
  }

  async function runDeposit(account: SimulatorAccount, dep: PartnerFiatDeposit & { accountId: string }, m: Method) {
    const setDep = async (patch: Partial<PartnerFiatDeposit>) => {
      Object.assign(dep, patch)
      const { accountId: _a, ...data } = dep
      await post(account, 'FiatDeposit', dep.ID, data as unknown as Record<string, unknown>, dep.CustomerID)
    }
    await setDep({ Status: 'Pending', SubStatus: 'AmlScreening' })
    await setDep({ Status: 'Settled', SubStatus: null })
    const fiat = toUnits(dep.FiatAmount, 2)
    const fee = (fiat + 99n) / 100n
    const rateMicros = toUnits(rate, 6)
    const crypto = ((fiat - fee) * rateMicros) / 100n
    const execution = randomUUID()
    const base = { Network: m.network, CryptoCurrency: m.crypto, CustomerID: m.customerId, Orchestration: { RuleID: m.ruleId, RuleExecutionID: execution } }
    const conversion: PartnerTransaction & { accountId: string } = {
      accountId: account.id, ID: randomUUID(), Created: iso(), Status: 'Settled', SubStatus: null, Direction: 'In', ...base,
      Amount: fromUnits(crypto, 6),
      FiatPayment: { Amount: dep.FiatAmount, FeeAmount: fromUnits(fee, 2), Rate: rate, FiatCurrency: dep.FiatCurrency, FiatDepositID: dep.ID, PaymentSystemID: dep.PaymentSystemID },
      Breakdown: [{ Type: 'ChannelFee', Amount: fromUnits(fee, 2) }, { Type: 'Remaining', Amount: fromUnits(fiat - fee, 2) }],
      Refunds: [],
    }
    txs.set(conversion.ID, conversion)
    const send = async (t: PartnerTransaction & { accountId: string }) => {
      const { accountId: _a, ...data } = t
      await post(account, 'Transaction', t.ID, data as unknown as Record<string, unknown>, t.CustomerID)
    }
    await send(conversion)
    const delivery: PartnerTransaction & { accountId: string } = {
      accountId: account.id, ID: randomUUID(), Created: iso(), Status: 'Pending', SubStatus: 'Submitted', Direction: 'Out', ...base,
      Amount: fromUnits(crypto, 6), NetworkFee: '0', DestinationAddress: m.address, Breakdown: [], Refunds: [],
    }
    txs.set(delivery.ID, delivery)
    await send(delivery)
    if (opts.chain) {
      try {
        delivery.TransactionHash = await opts.chain.sendStablecoin(m.address, crypto)
        delivery.Status = 'Settled'
      } catch {
        delivery.Status = 'Failed'
      }
    } else {
      // no chain: the delivery is recorded as settled without a hash
      delivery.Status = 'Settled'
    }
    delivery.SubStatus = null
    await send(delivery)
  }

  /** the customer the partner knows (hosted onboarding started), or a refusal */
  const knownCustomer = (accountId: string, customerId: unknown) => {
    const c = typeof customerId === 'string' ? customers.get(key(accountId, customerId)) : undefined
    return c && c.started ? c : null
  }
  const ownPayoutMethod = (accountId: string, customerId: string, id: unknown) => {
    const m = typeof id === 'string' ? payoutMethods.get(id) : undefined
    return m && m.accountId === accountId && m.customerId === customerId ? m : null
  }
  /** fields of the SEPA form a saved account still lacks (all of them without one) */
  const lackingFields = (m: { fields: Record<string, string> } | null) => (m ? SEPA_REQUIRED.filter((f) => !m.fields[f]) : SEPA_REQUIRED)
  const rateMicros = () => toUnits(rate, 6)

  async function runSell(account: SimulatorAccount, t: PartnerTransaction & { accountId: string }) {
    const send = async () => {
      const { accountId: _a, ...data } = t
      await post(account, 'Transaction', t.ID, data as unknown as Record<string, unknown>, t.CustomerID)
    }
    await send()
    t.Status = 'Settled'
    t.SubStatus = null
    await send()
  }

  const app = new Elysia({ prefix: opts.basePath ?? '' })
    .get('/onboarding/:token', ({ params }) => {
      const s = sessions.get(params.token)
      if (!s || s.expiresAt < now()) return html('<p>This onboarding link has expired.</p>', 404)
      const c = customers.get(key(s.accountId, s.customerId))!
      if (!c.started) {
        c.started = true
        c.version++
        const account = accountsById.get(s.accountId)
        if (account) track(post(account, 'Customer', c.id, customerView(c) as unknown as Record<string, unknown>, c.id))
      }
      const button = (d: string, label: string) => `<button name="decision" value="${d}">${label}</button>`
      return html(`<h1>Bank ramp sandbox: identity check</h1><p>Status: ${esc(c.status)}</p>
<form method="post" action="${esc(params.token)}/decision">${button('approve', 'Approve')} ${button('decline', 'Decline')} ${button('more_info', 'Ask for more information')}</form>`)
    })
    .post('/onboarding/:token/decision', async ({ params, request }) => {
      const s = sessions.get(params.token)
      if (!s || s.expiresAt < now()) return html('<p>This onboarding link has expired.</p>', 404)
      const text = await request.text()
      const decision = new URLSearchParams(text).get('decision') ?? (() => { try { return JSON.parse(text).decision } catch { return null } })()
      if (!['approve', 'decline', 'more_info'].includes(decision)) return html('<p>Unknown decision.</p>', 400)
      const c = customers.get(key(s.accountId, s.customerId))!
      const account = accountsById.get(s.accountId)
      if (!c.started || !account) return html('<p>Open the onboarding page first.</p>', 409)
      decide(c, account, decision)
      return html(`<p>Decision recorded: ${esc(c.status)}.</p><p><a href="${esc(s.returnUrl)}">Back to the app</a></p>`)
    })
    .group('/v1', (v1) => v1
      .resolve(({ request }) => {
        const account = opts.accounts(request.headers.get('x-api-key') ?? '')
        if (account) accountsById.set(account.id, account)
        return { account }
      })
      .onBeforeHandle(({ account }) => (account ? undefined : partnerError(401, 'Unauthorized', 'Invalid API key')))
      .get('/customers/:id', ({ params, account }) => {
        const c = customers.get(key(account!.id, params.id))
        if (!c || !c.started) return partnerError(404, 'ResourceNotFound', 'Customer not found')
        return json(customerView(c))
      })
      .post('/onboarding/:id', async ({ params, request, account }) => {
        const body = await readJson(request)
        const returnUrl = body?.ReturnURL
        const fiat = body?.FiatOptions
        if (typeof returnUrl !== 'string' || !/^https?:\/\//.test(returnUrl) || !Array.isArray(fiat) || !fiat.length) {
          return partnerError(400, 'InvalidMessage', 'ReturnURL and FiatOptions are required', { ReturnURL: 'required', FiatOptions: 'required' })
        }
        if (!/^[A-Za-z0-9-]{1,64}$/.test(params.id)) return partnerError(400, 'InvalidMessage', 'CustomerID is not valid')
        const k = key(account!.id, params.id)
        let c = customers.get(k)
        const created = !c
        if (!c) {
          c = { id: params.id, accountId: account!.id, type: body?.CustomerType === 'Business' ? 'Business' : 'Individual', started: false, status: 'Pending', actionsRequired: [], agreements: [], regions: [], created: iso(), version: 0 }
          customers.set(k, c)
        }
        const token = randomUUID()
        sessions.set(token, { token, accountId: account!.id, customerId: params.id, returnUrl, expiresAt: now() + 24 * 3600_000 })
        return json({ HostedURL: `${opts.publicUrl()}/onboarding/${token}` }, created ? 201 : 200)
      })
      .post('/workflows/bank-deposit-to-onchain-address', async ({ request, account }) => {
        const b = await readJson(request)
        const missing = ['CustomerID', 'FiatCurrency', 'CryptoCurrency', 'Network'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
        const address = b?.DestinationAddress?.Address
        if (typeof address !== 'string' || !address) missing.push('DestinationAddress')
        if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
        const c = customers.get(key(account!.id, b.CustomerID))
        if (!c || !c.started) return partnerError(404, 'ResourceNotFound', 'Customer not found')
        if (c.status !== 'Approved') return partnerError(403, 'Forbidden', 'The customer is not verified')
        if (b.FiatCurrency !== 'EUR') return partnerError(400, 'InvalidMessage', 'Only EUR virtual accounts are offered', { FiatCurrency: 'EUR' })
        let m = [...methods.values()].find((x) => x.accountId === account!.id && x.customerId === c!.id && x.fiat === b.FiatCurrency && x.crypto === b.CryptoCurrency && x.network === b.Network && x.address === address)
        if (!m) {
          const id = `Bank/Sepa/${randomUUID()}`
          m = { id, accountId: account!.id, customerId: c.id, iban: sandboxIban('50010517', methods.size + 1 + nextAccount++ * 1000), fiat: b.FiatCurrency, crypto: b.CryptoCurrency, network: b.Network, address, ruleId: randomUUID() }
          methods.set(id, m)
        }
        const res: BankDepositToOnchainAddressResponse = {
          PaymentMethodID: m.id, PaymentMethodType: 'BankSepa', AccountNumber: m.iban, AccountHolderName: 'Noah Sandbox Ltd', BankCode: 'INGDDEFFXXX', BankName: 'Sandbox Bank', Reference: m.ruleId.slice(0, 8).toUpperCase(),
        }
        return json(res)
      })
      .get('/payment-methods', ({ query, account }) => {
        const customerId = String(query.CustomerID ?? '')
        const items: PartnerPaymentMethod[] = [...methods.values()].filter((m) => m.accountId === account!.id && m.customerId === customerId).map((m) => ({
          ID: m.id, CustomerID: m.customerId, Country: 'DE', PaymentMethodCategory: 'Bank', DisplayDetails: { Type: 'FiatPaymentMethodBankDisplay', AccountNumber: m.iban, BankCode: 'INGDDEFFXXX' },
        }))
        // bank accounts saved by sells (beneficiaries)
        for (const m of payoutMethods.values()) {
          if (m.accountId !== account!.id || m.customerId !== customerId) continue
          items.push({ ID: m.id, CustomerID: m.customerId, Country: m.fields.IBAN!.slice(0, 2), PaymentMethodCategory: 'Bank', DisplayDetails: { Type: 'FiatPaymentMethodBankDisplay', AccountNumber: m.fields.IBAN!, ...(m.fields.BIC ? { BankCode: m.fields.BIC } : {}) } })
        }
        return json({ Items: items })
      })
      .post('/sandbox/fiat-deposit/simulate', async ({ request, account }) => {
        const b = await readJson(request)
        if (typeof b?.PaymentMethodID !== 'string' || typeof b?.FiatAmount !== 'string' || !DECIMAL.test(b.FiatAmount) || Number(b.FiatAmount) <= 0 || typeof b?.FiatCurrency !== 'string') {
          return partnerError(400, 'InvalidMessage', 'PaymentMethodID, FiatAmount (positive decimal) and FiatCurrency are required')
        }
        const m = methods.get(b.PaymentMethodID)
        if (!m || m.accountId !== account!.id) return partnerError(404, 'ResourceNotFound', 'Payment method not found')
        if (b.FiatCurrency !== m.fiat) return partnerError(400, 'InvalidMessage', `The account receives ${m.fiat}`)
        const dep: PartnerFiatDeposit & { accountId: string } = {
          accountId: account!.id, ID: randomUUID(), Created: iso(), FiatAmount: b.FiatAmount, FiatCurrency: b.FiatCurrency, Status: 'Pending', SubStatus: null,
          CustomerID: m.customerId, PaymentMethodID: m.id, PaymentMethodType: 'BankSepa', PaymentSystemID: `SEPA-${randomUUID().slice(0, 12).toUpperCase()}`,
          Reference: typeof b.Reference === 'string' ? b.Reference : undefined, Refunds: [],
        }
        deposits.set(dep.ID, dep)
        track(runDeposit(account!, dep, m))
        return json({ FiatDepositID: dep.ID })
      })
      .get('/channels/sell/countries', ({ query, account }) => {
        if (query.CustomerID !== undefined && !knownCustomer(account!.id, query.CustomerID)) return partnerError(404, 'ResourceNotFound', 'Customer not found')
        const out: Record<string, string[]> = {}
        for (const c of CHANNELS) out[c.Country] = [...new Set([...(out[c.Country] ?? []), c.FiatCurrency])]
        return json(out)
      })
      .get('/channels/sell', ({ query, account }) => {
        if (typeof query.CryptoCurrency !== 'string' || !query.CryptoCurrency) return partnerError(400, 'InvalidMessage', 'CryptoCurrency is required', { CryptoCurrency: 'required' })
        if (!['USDC', 'USDC_TEST'].includes(query.CryptoCurrency)) return json({ Items: [] })
        if (query.FiatAmount !== undefined && !DECIMAL.test(String(query.FiatAmount))) return partnerError(400, 'InvalidMessage', 'FiatAmount is not a positive decimal', { FiatAmount: 'invalid' })
        const customer = query.CustomerID !== undefined ? knownCustomer(account!.id, query.CustomerID) : null
        if (query.CustomerID !== undefined && !customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
        const items = CHANNELS.filter((c) => (!query.Country || c.Country === query.Country) && (!query.FiatCurrency || c.FiatCurrency === query.FiatCurrency)).map((c) => ({
          ...c,
          Limits: { MinLimit: fromUnits(PAYOUT_MIN, 2), MaxLimit: fromUnits(PAYOUT_MAX, 2) },
          Rate: rate,
          ProcessingSeconds: c.PaymentMethodType === 'BankSepa' ? 10 : 60,
          ProcessingTier: 'Standard',
          ...(query.FiatAmount !== undefined ? { Calculated: { TotalFee: fromUnits(ceilUnits(toUnits(String(query.FiatAmount), 2), 100n), 2) } } : {}),
        }))
        return json({ Items: items })
      })
      .get('/channels/:id/form', ({ params, query, account }) => {
        const channel = CHANNELS.find((c) => c.ID === params.id)
        if (!channel) return partnerError(404, 'ResourceNotFound', 'Channel not found')
        if (channel.PaymentMethodType === 'TokenizedCard') return partnerError(400, 'InvalidMessage', 'Card channels take card details through the hosted checkout only')
        const customer = knownCustomer(account!.id, query.CustomerID)
        if (!customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
        let saved = null
        if (query.PaymentMethodID !== undefined) {
          saved = ownPayoutMethod(account!.id, customer.id, query.PaymentMethodID)
          if (!saved) return partnerError(404, 'ResourceNotFound', 'Payment method not found')
        }
        const lacking = lackingFields(saved)
        // nothing more to ask: the partner omits FormSchema
        if (saved && !lacking.length) return json({})
        return json({ FormSchema: sepaSchema(saved ? lacking : Object.keys(SEPA_FIELDS), lacking) })
      })
      .post('/transactions/sell/prepare', async ({ request, account }) => {
        const b = await readJson(request)
        const missing = ['ChannelID', 'CryptoCurrency', 'FiatAmount', 'CustomerID'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
        if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
        if (!DECIMAL.test(b.FiatAmount)) return partnerError(400, 'InvalidMessage', 'FiatAmount is not a decimal with at most 2 places', { FiatAmount: 'invalid' })
        const channel = CHANNELS.find((c) => c.ID === b.ChannelID)
        if (!channel) return partnerError(404, 'ResourceNotFound', 'Channel not found')
        if (channel.PaymentMethodType !== 'BankSepa') return partnerError(400, 'InvalidMessage', 'This channel is paid through the hosted checkout only')
        const customer = knownCustomer(account!.id, b.CustomerID)
        if (!customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
        if (customer.status !== 'Approved') return partnerError(403, 'Forbidden', 'The customer is not verified')
        if (!['USDC', 'USDC_TEST'].includes(b.CryptoCurrency)) return partnerError(400, 'InvalidMessage', 'CryptoCurrency is not sold on this channel', { CryptoCurrency: 'unsupported' })
        const fiat = toUnits(b.FiatAmount, 2)
        if (fiat < PAYOUT_MIN || fiat > PAYOUT_MAX) return partnerError(400, 'InvalidMessage', `FiatAmount must be between ${fromUnits(PAYOUT_MIN, 2)} and ${fromUnits(PAYOUT_MAX, 2)}`, { FiatAmount: 'out of limits' })
        let saved = null
        if (b.PaymentMethodID !== undefined) {
          saved = ownPayoutMethod(account!.id, customer.id, b.PaymentMethodID)
          if (!saved) return partnerError(404, 'ResourceNotFound', 'Payment method not found')
        }
        const form = b.Form ?? {}
        const errors = sepaFormErrors(form, lackingFields(saved))
        if (Object.keys(errors).length) return partnerError(400, 'InvalidMessage', 'The form is not filled as its schema asks', errors)
        const fee = ceilUnits(fiat, 100n)
        // crypto (6 places) = (fiat + fee) / rate, rounded up; 1% slippage on top is what may be charged at most
        const estimate = ceilUnits((fiat + fee) * 10n ** 10n, rateMicros())
        const authorized = ceilUnits(estimate * 101n, 100n)
        const network = typeof b.Network === 'string' && b.Network ? b.Network : 'EthereumTestSepolia'
        const id = randomUUID()
        formSessions.set(id, {
          id, accountId: account!.id, customerId: customer.id, channel, fiat: b.FiatAmount, crypto: b.CryptoCurrency, fee: fromUnits(fee, 2),
          estimate: fromUnits(estimate, 6), authorized: fromUnits(authorized, 6), network, form: { ...(saved?.fields ?? {}), ...(form as Record<string, string>) },
          paymentMethodId: saved?.id, expiresAt: now() + 30 * 60_000,
        })
        const address = network.startsWith('Solana') ? SANDBOX_DEPOSIT_SOLANA : (opts.depositAddress ?? SANDBOX_DEPOSIT_EVM)
        return json({ FormSessionID: id, TotalFee: fromUnits(fee, 2), CryptoAmountEstimate: fromUnits(estimate, 6), CryptoAuthorizedAmount: fromUnits(authorized, 6), DepositAddress: { Network: network, Address: address } })
      })
      .post('/transactions/sell', async ({ request, account }) => {
        const b = await readJson(request)
        const missing = ['CryptoCurrency', 'FiatAmount', 'CryptoAuthorizedAmount', 'FormSessionID', 'Nonce'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
        if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
        if (b.Nonce.length > 36) return partnerError(400, 'InvalidMessage', 'Nonce is at most 36 characters', { Nonce: 'too long' })
        // the same Nonce never sells twice: the first sell's transaction is answered again
        const earlier = sells.get(key(account!.id, b.Nonce))
        if (earlier) {
          const { accountId: _a, ...data } = txs.get(earlier)!
          return json({ Transaction: data }, 202)
        }
        const s = formSessions.get(b.FormSessionID)
        if (!s || s.accountId !== account!.id) return partnerError(404, 'ResourceNotFound', 'Form session not found')
        if (s.expiresAt < now()) return partnerError(400, 'InvalidMessage', 'The form session has expired', { FormSessionID: 'expired' })
        if (b.FiatAmount !== s.fiat || b.CryptoCurrency !== s.crypto) return partnerError(400, 'InvalidMessage', 'FiatAmount and CryptoCurrency must be those prepared')
        if (!DECIMAL6.test(b.CryptoAuthorizedAmount) || toUnits(b.CryptoAuthorizedAmount, 6) < toUnits(s.authorized, 6)) {
          return partnerError(400, 'InvalidMessage', `CryptoAuthorizedAmount must be at least ${s.authorized}`, { CryptoAuthorizedAmount: 'too low' })
        }
        formSessions.delete(s.id)
        let method = s.paymentMethodId ? payoutMethods.get(s.paymentMethodId) : undefined
        if (!method) {
          const id = `Bank/Sepa/${s.form.IBAN}`
          method = { id, accountId: account!.id, customerId: s.customerId, fields: s.form }
          payoutMethods.set(id, method)
        }
        const t: PartnerTransaction & { accountId: string } = {
          accountId: account!.id, ID: randomUUID(), Created: iso(), Status: 'Pending', SubStatus: 'Submitted', Direction: 'Out', Network: s.network,
          CryptoCurrency: s.crypto, CustomerID: s.customerId, Amount: s.estimate, ExternalID: typeof b.ExternalID === 'string' ? b.ExternalID : undefined,
          FiatPayment: { Amount: s.fiat, FeeAmount: s.fee, Rate: rate, FiatCurrency: s.channel.FiatCurrency, PaymentSystemID: `SEPA-${randomUUID().slice(0, 12).toUpperCase()}` },
          Breakdown: [{ Type: 'ChannelFee', Amount: s.fee }, { Type: 'Remaining', Amount: s.fiat }], Refunds: [],
          TransactionHash: typeof b.SourceTransactionHash === 'string' ? b.SourceTransactionHash : undefined,
        }
        txs.set(t.ID, t)
        sells.set(key(account!.id, b.Nonce), t.ID)
        const { accountId: _a, ...data } = t
        const answer = json({ Transaction: { ...data } }, 202)
        track(runSell(account!, t))
        return answer
      })
      .post('/customers/:id/addresses', async ({ params, request, account }) => {
        const customer = knownCustomer(account!.id, params.id)
        if (!customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
        const b = await readJson(request)
        const missing = ['Network', 'Address', 'Message', 'Signature', 'SignatureScheme'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
        if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
        if (!['EIP191', 'Ed25519'].includes(b.SignatureScheme)) return partnerError(400, 'InvalidMessage', 'SignatureScheme is EIP191 or Ed25519', { SignatureScheme: 'invalid' })
        if (!String(b.Message).includes(b.Address)) return partnerError(400, 'InvalidMessage', 'The message does not name the address', { Message: 'invalid' })
        const k = key(account!.id, `${customer.id}:${b.Network}:${b.Address}`)
        let a = provenAddresses.get(k)
        if (!a) {
          a = { AddressID: randomUUID(), Network: b.Network, Address: b.Address, Created: iso(), accountId: account!.id, customerId: customer.id }
          provenAddresses.set(k, a)
        }
        const { accountId: _a, customerId: _c, ...out } = a
        return json(out, 201)
      })
      .delete('/customers/:id/addresses/:addressId', ({ params, account }) => {
        for (const [k, a] of provenAddresses) {
          if (a.accountId === account!.id && a.customerId === params.id && a.AddressID === params.addressId) {
            provenAddresses.delete(k)
            return new Response(null, { status: 204 })
          }
        }
        return partnerError(404, 'ResourceNotFound', 'Address not found')
      })
      .get('/transactions/:id', ({ params, account }) => {
        const t = txs.get(params.id)
        if (!t || t.accountId !== account!.id) return partnerError(404, 'ResourceNotFound', 'Transaction not found')
        const { accountId: _a, ...data } = t
        return json(data)
      }))
  const accountsById = new Map<string, SimulatorAccount>()

  return {
    app,
    fetch: (request: Request) => app.handle(request),
    /** resolves once the webhooks and chain sends started so far are done */
    async settle() {
      while (pending.size) await Promise.allSettled([...pending])
    },
  }
}

export type BankRampSimulator = ReturnType<typeof createBankRampSimulator>

async function readJson(request: Request): Promise<any> {
  try {
    return await request.json()
  } catch {
    return undefined
  }
}
