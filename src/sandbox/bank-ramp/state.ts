/**
 * The simulator's state, held in memory as its working set. Every collection expires its
 * entries and is bounded per account (store.ts), with the limits below (docs/bank-ramp.md,
 * "The simulator"). With a persistence (persistence.ts) every change is also saved, and the
 * state is loaded back after a restart; without one (a standalone simulator) a restart forgets it.
 */
import type { PartnerAgreement, PartnerFiatDeposit, PartnerTransaction } from '../../adapters/bank-ramp/port'
import type { SignedTransfer } from '../../adapters/chain/funded-sender'
import type { Channel } from './protocol'
import { AccountStore, type StoreLimits } from './store'

export interface Customer {
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

export interface Session { token: string; accountId: string; customerId: string; returnUrl: string; expiresAt: number }
export interface Method { id: string; accountId: string; customerId: string; iban: string; fiat: string; crypto: string; network: string; address: string; ruleId: string }
export type Deposit = PartnerFiatDeposit & { accountId: string }
export type Transaction = PartnerTransaction & { accountId: string }
/** a saved payout bank account: the partner's id holds the account number, as the partner's does */
export interface PayoutMethod { id: string; accountId: string; customerId: string; fields: Record<string, string> }
export interface FormSession {
  id: string; accountId: string; customerId: string; channel: Channel; fiat: string; crypto: string; fee: string; estimate: string; authorized: string
  network: string; form: Record<string, string>; paymentMethodId?: string; expiresAt: number
}
/**
 * A simulated deposit still being worked through (deposit-run.ts): `step` counts the steps done
 * and reported, the ids are those of the records it made, `signed` the on-chain transfer as
 * signed before it was broadcast. Dropped once the delivery's final status is reported.
 */
export interface DepositRun {
  id: string; accountId: string; customerId: string; methodId: string; step: number
  conversionId?: string; deliveryId?: string; signed?: SignedTransfer
}
export interface ProvenAddress { AddressID: string; Network: string; Address: string; Created: string; accountId: string; customerId: string }

const DAY = 24 * 3600_000
/** records a sandbox user may come back to: a month, then forgotten as a restart would */
const RECORD_TTL = 30 * DAY

export const DEFAULT_LIMITS = {
  customers: { perAccount: 10_000, ttlMs: RECORD_TTL },
  /** hosted onboarding links: 24 hours, kept an hour more so the page can say it expired */
  sessions: { perAccount: 1_000, ttlMs: DAY, graceMs: 3600_000 },
  /** virtual IBANs */
  methods: { perAccount: 10_000, ttlMs: RECORD_TTL },
  deposits: { perAccount: 10_000, ttlMs: RECORD_TTL },
  /** a deposit makes two transactions (conversion and delivery), a sell one */
  txs: { perAccount: 30_000, ttlMs: RECORD_TTL },
  /** EventVersion counters of the records above, one per record */
  versions: { perAccount: 50_000, ttlMs: RECORD_TTL },
  /** saved beneficiaries */
  payoutMethods: { perAccount: 10_000, ttlMs: RECORD_TTL },
  /** prepared sells (quotes): 30 minutes, kept an hour more so a late sell is told it expired */
  formSessions: { perAccount: 1_000, ttlMs: 30 * 60_000, graceMs: 3600_000 },
  /** sell Nonces, so the same Nonce never sells twice while its transaction is remembered */
  sells: { perAccount: 30_000, ttlMs: RECORD_TTL },
  provenAddresses: { perAccount: 10_000, ttlMs: RECORD_TTL },
  /** deposits between their simulated transfer and their delivery's final status, resumed after a restart */
  runs: { perAccount: 10_000, ttlMs: RECORD_TTL },
} satisfies Record<string, StoreLimits>

export type SimulatorLimits = { [K in keyof typeof DEFAULT_LIMITS]: StoreLimits }

/** keys made by `key(accountId, id)` in context.ts start with the account */
const accountOfKey = (key: string) => key.slice(0, key.indexOf(':'))
const accountOfValue = (_key: string, v: { accountId: string }) => v.accountId

export function createSimulatorState(now: () => number, overrides: Partial<SimulatorLimits> = {}) {
  const limits: SimulatorLimits = { ...DEFAULT_LIMITS, ...overrides }
  const deadline = (v: { expiresAt: number }) => v.expiresAt
  return {
    customers: new AccountStore<Customer>(limits.customers, now, accountOfValue),
    sessions: new AccountStore<Session>(limits.sessions, now, accountOfValue, deadline),
    methods: new AccountStore<Method>(limits.methods, now, accountOfValue),
    deposits: new AccountStore<Deposit>(limits.deposits, now, accountOfValue),
    txs: new AccountStore<Transaction>(limits.txs, now, accountOfValue),
    versions: new AccountStore<number>(limits.versions, now, accountOfKey),
    payoutMethods: new AccountStore<PayoutMethod>(limits.payoutMethods, now, accountOfValue),
    formSessions: new AccountStore<FormSession>(limits.formSessions, now, accountOfValue, deadline),
    sells: new AccountStore<string>(limits.sells, now, accountOfKey),
    /** proven addresses by account and customer; the same address registered again keeps its id */
    provenAddresses: new AccountStore<ProvenAddress>(limits.provenAddresses, now, accountOfValue),
    runs: new AccountStore<DepositRun>(limits.runs, now, accountOfValue),
  }
}

export type SimulatorState = ReturnType<typeof createSimulatorState>
/** a collection of the state, also the `kind` of its saved records */
export type StoreKind = keyof SimulatorState
export const STORE_KINDS = Object.keys(DEFAULT_LIMITS) as StoreKind[]

/** how many entries each collection holds in memory, expired ones included until dropped */
export function stateSizes(state: SimulatorState) {
  const out: Record<string, number> = {}
  for (const [name, v] of Object.entries(state)) if (v instanceof AccountStore) out[name] = v.size
  return out
}
