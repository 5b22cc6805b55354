/**
 * What every part of the simulator shares: its options, its state (in memory, mirrored into a
 * persistence when it has one), the partner webhooks it posts and the background work it
 * tracks. Built once per simulator by `createSimulatorContext` (app.ts) and handed to the
 * hosted pages and each route group.
 */
import type { PartnerCustomer, PartnerEvent } from '../../adapters/bank-ramp/port'
import type { StablecoinSender as SimulatorChain } from '../../adapters/chain/funded-sender'
import type { TransferVerifier } from '../../adapters/chain/transfer-check'
import { mirrorState, type SimulatorPersistence } from './persistence'
import { SEPA_REQUIRED, toUnits } from './protocol'
import { signPartnerWebhook } from './signature'
import { createSimulatorState, type Customer, type PayoutMethod, type SimulatorLimits } from './state'

export interface SimulatorAccount {
  id: string
  /** where partner webhooks go, signed with `secret` */
  webhook?: { url: string; secret: string }
}

export interface SimulatorOptions {
  /** the account an API key opens, or null */
  accounts: (apiKey: string) => SimulatorAccount | null
  /**
   * The account of an id, for the hosted pages, which are opened without a key: after a
   * restart, a page may be opened before the account's key was seen again. Absent: only the
   * accounts seen on the partner API since the simulator started.
   */
  accountById?: (accountId: string) => SimulatorAccount | null
  /** keeps the state across restarts (persistence.ts); in memory only when absent */
  persistence?: SimulatorPersistence
  /** keys the saved beneficiaries' ids (payouts.ts); random per simulator when absent, which a persistence needs to outlive */
  secret?: Uint8Array
  /** address the hosted pages are reached at by a browser (no trailing slash, including `basePath`) */
  publicUrl: () => string
  /** path the simulator is served under (`/sandbox/bank-ramp` when embedded in Slipway) */
  basePath?: string
  /** sends a webhook; `fetch` by default (the embedded simulator posts in process) */
  deliver?: (request: Request) => Promise<Response>
  /** the chain the stablecoin is sent on; recorded only when absent */
  chain?: SimulatorChain
  /** reads a sell's SourceTransactionHash back from the chain before it settles (payouts.ts); unchecked when absent */
  verifier?: TransferVerifier
  /** fixed EUR to stablecoin rate, as decimal text */
  rate?: string
  /** where customers send the stablecoin they sell (EVM networks); a fixed sandbox address by default */
  depositAddress?: string
  now?: () => number
  /** per-account bounds and lifetimes of the simulator's state (state.ts DEFAULT_LIMITS) */
  limits?: Partial<SimulatorLimits>
}

export function createSimulatorContext(opts: SimulatorOptions) {
  const now = opts.now ?? (() => Date.now())
  const iso = () => new Date(now()).toISOString()
  const state = createSimulatorState(now, opts.limits)
  const mirror = mirrorState(state, opts.persistence)
  const rate = opts.rate ?? '1.08'
  const deliver = opts.deliver ?? ((r: Request) => fetch(r))
  /** background work (webhooks, chain sends) still running, so tests and shutdown can wait */
  const pending = new Set<Promise<unknown>>()
  /** the accounts seen on the partner API, so the hosted pages can post their webhooks */
  const accountsById = new Map<string, SimulatorAccount>()
  const key = (accountId: string, id: string) => `${accountId}:${id}`

  /** saves what changed; background work goes on when the database refuses (the next save takes the changes) */
  const save = () => mirror.flush().catch(() => {})
  const track = (p: Promise<unknown>) => {
    // what the work changed after its last webhook is saved before it counts as done
    const done = p.catch(() => {}).then(save)
    pending.add(done)
    done.finally(() => pending.delete(done))
  }
  const accountOf = (accountId: string) => accountsById.get(accountId) ?? opts.accountById?.(accountId) ?? undefined

  async function post(account: SimulatorAccount, type: PartnerEvent['EventType'], recordId: string, data: Record<string, unknown>, customerId?: string) {
    const hook = account.webhook
    const versionKey = key(account.id, recordId)
    const version = (state.versions.get(versionKey) ?? 0) + 1
    state.versions.set(versionKey, version)
    // the change an event reports is saved before the event leaves
    await save()
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

  /** the customer the partner knows (hosted onboarding started), or a refusal */
  const knownCustomer = (accountId: string, customerId: unknown) => {
    const c = typeof customerId === 'string' ? state.customers.get(key(accountId, customerId)) : undefined
    return c && c.started ? c : null
  }
  const ownPayoutMethod = (accountId: string, customerId: string, id: unknown) => {
    const m = typeof id === 'string' ? state.payoutMethods.get(id) : undefined
    return m && m.accountId === accountId && m.customerId === customerId ? m : null
  }
  /** fields of the SEPA form a saved account still lacks (all of them without one) */
  const lackingFields = (m: Pick<PayoutMethod, 'fields'> | null) => (m ? SEPA_REQUIRED.filter((f) => !m.fields[f]) : SEPA_REQUIRED)
  const rateMicros = () => toUnits(rate, 6)

  return {
    opts, now, iso, state, mirror, rate, key, track, post, pending, accountsById, accountOf,
    customerView, knownCustomer, ownPayoutMethod, lackingFields, rateMicros,
  }
}

export type SimulatorContext = ReturnType<typeof createSimulatorContext>
