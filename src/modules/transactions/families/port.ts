/**
 * What a chain family does for the transactions module: one implementation per family
 * (evm.ts, solana.ts), chosen by `familyOf`. The verbs (service.ts, broadcast.ts,
 * refresh.ts) plan, check and record what is common; a family builds, signs, submits
 * and reads back the family's own transactions, reaching the RPC through the chain
 * adapter (`deps.chain`).
 */
import type { ChainEndpoint, SubmitOutcome } from '../../../adapters/chain/port'
import type { Ctx } from '../../../context'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../../deps'
import type { TokenDef } from '../../tokens'
import type { StoredSettings } from '../../tenants'
import type { ownWallet } from '../../wallets'
import type { BroadcastBody, Created } from '../model'
import type { PreparedRow, TransactionRow } from '../repo'
import type { EvmCall } from './evm-calls'

/** A wallet as the wallets module answers it. */
export type WalletRow = Awaited<ReturnType<typeof ownWallet>>

/** A checked send: whose, from which wallet, what, to whom, on which network. */
export interface SendPlan {
  tenantId: string
  settings: StoredSettings
  wallet: WalletRow
  token: TokenDef
  to: string
  amount: bigint
  /** registry id of the wallet's network */
  network: string
  /** the network's RPC as resolved for the tenant */
  endpoint: ChainEndpoint
  /** a hold placed for this send (holds.ts): the send takes it over instead of holding the amount anew */
  holdId?: string
  /**
   * EVM: the call to make instead of transferring `amount` of `token` to `to` (a swap, an
   * approval). `token` and `amount` are then what the call spends, held like a send's.
   */
  call?: EvmCall
  /**
   * EVM: calls that must run before `call` (a swap's approval). Only a sponsored user operation
   * carries them, with `call`, as one atomic Simple7702Account `executeBatch`; a send that is not
   * sponsored goes without them (and fails as `call` alone would, 400).
   */
  ahead?: EvmCall[]
  /**
   * A deployment key that signs and pays the gas instead of the wallet (a gasless swap's
   * relayer): its own nonce lane (`nonceKey`, shared by every tenant) and address; the record
   * stays the wallet's (its history, its holds of `amount`), with `fromAddress` the signer.
   */
  signer?: RelaySigner
  /**
   * Custodial sends: run in the write that records the send, after its record is stored and
   * before anything can reach the network (a gasless relay's claim taken there); throwing undoes
   * the write and nothing is sent.
   */
  onRecorded?: (tx: Tx, transactionId: string, now: number) => Promise<void>
  /** what the record is (default a `send`), with the swap's quote and details */
  record?: { type: 'swap' | 'approval' | 'supply' | 'withdraw'; quoteId?: string; metadata?: Record<string, unknown> }
  /**
   * The operation kind a gas policy must cover for this send to go sponsored, where the record's
   * type does not say it: a bank payout's transfer (`payout`), an agent's payment (`agent`).
   */
  sponsorAs?: 'payout' | 'agent'
}

export interface RelaySigner {
  address: string
  nonceKey: { tenantId: string; walletId: string; network: string }
  /** the key, opened for one send: the caller zeroes it once signed */
  secret(): Uint8Array
}

/** A would-be send's network fee, in the native coin's smallest unit; gas fields are null where the family has none. */
export interface FeeEstimate {
  estimatedGas: bigint | null
  maxFeePerGas: bigint | null
  maxPriorityFeePerGas: bigint | null
  fee: bigint
}

/** A client-signed transaction as it goes to the network, who signed it, and its hash. */
export interface SignedTransaction {
  raw: string
  signer: string
  hash: string
}

export interface ChainFamily {
  /** estimated network fee for the plan; nothing stored or sent */
  quote(ctx: Ctx, plan: SendPlan): Promise<FeeEstimate>
  /** custodial: sign with the wallet's key, record, submit */
  send(ctx: Ctx, plan: SendPlan): Promise<Created>
  /** non-custodial: record the transaction and what the client must sign */
  prepare(ctx: Ctx, plan: SendPlan): Promise<Created>
  /** the transaction a client signed, from its signature or signed transaction; throws SIGNATURE_DECODE_FAILED */
  signed(prepared: PreparedRow, input: BroadcastBody): Promise<SignedTransaction>
  /** whether the recovered signer is the wallet's address (as the family compares addresses) */
  isSigner(signer: string, walletAddress: string): boolean
  /** hands a signed transaction to the network */
  submit(deps: Deps, endpoint: ChainEndpoint, raw: string): Promise<SubmitOutcome>
  /** reads the transaction's fate from the chain, saves what changed and answers the saved row */
  refresh(deps: Deps, endpoint: ChainEndpoint, row: TransactionRow): Promise<TransactionRow>
}
