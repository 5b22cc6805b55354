/**
 * The simulator's state: in memory only, so a restart forgets its customers (the sandbox only).
 */
import type { PartnerAgreement, PartnerFiatDeposit, PartnerTransaction } from '../../adapters/bank-ramp/port'
import type { Channel } from './protocol'

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
export interface ProvenAddress { AddressID: string; Network: string; Address: string; Created: string; accountId: string; customerId: string }

export function createSimulatorState() {
  return {
    customers: new Map<string, Customer>(),
    sessions: new Map<string, Session>(),
    methods: new Map<string, Method>(),
    deposits: new Map<string, Deposit>(),
    txs: new Map<string, Transaction>(),
    versions: new Map<string, number>(),
    payoutMethods: new Map<string, PayoutMethod>(),
    formSessions: new Map<string, FormSession>(),
    sells: new Map<string, string>(),
    /** proven addresses by account and customer; the same address registered again keeps its id */
    provenAddresses: new Map<string, ProvenAddress>(),
    nextAccount: 1,
  }
}

export type SimulatorState = ReturnType<typeof createSimulatorState>
