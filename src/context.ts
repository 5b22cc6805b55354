/**
 * The types every layer shares: who acts (`Actor`), which tenant signed a request
 * (`SignedTenant`), what a service verb gets (`Ctx`), and the collaborator interfaces
 * that `src/services.ts` wires between modules. It imports only types from below
 * (deps, db, lib), so anything may import it without forming a cycle.
 */
import type { InStatement, ResultSet } from '@libsql/client'
import type { Deps } from './deps'
import type { Tx } from './db/client'
import type { users } from './db/schema'
import type { Role } from './lib/jwt'

export type { Role }
export type UserRow = typeof users.$inferSelect

export interface Actor {
  userId: string
  tenantId: string | null
  role: Role
  /** the user's row as read for this request */
  user: UserRow
}

export interface SignedTenant {
  id: string
  name: string
  settings: Record<string, unknown>
}

/**
 * An accepted tenant signature whose replay row the verb's write records (the
 * `tenantSignedWrite` route option, src/http/replay.ts): one write per request, not two. A
 * verb whose write is one batch sends it through `writeBatch`, which puts the row first: a
 * request with the same signature that got there first fails the batch (401 Replay
 * detected, nothing written). A verb that writes otherwise calls `record()` before its
 * write, as every other signed route records before its work. Whatever the verb does, the
 * route records the signature once it has answered (a refusal too).
 */
export interface SignatureRecord {
  writeBatch(stmts: InStatement[]): Promise<ResultSet[]>
  record(): Promise<void>
}

/**
 * The request's `Idempotency-Key`, when it has one (src/http/idempotency.ts). A verb binds
 * it to what it records once money may move, in the write transaction that records it:
 * from then on the key is never released, and a retry answers that record's current state.
 */
export interface IdempotencyBinding {
  /** `resource` is `<kind>:<id>` of a kind the route's module can answer (registerReplay) */
  bind(tx: Tx, resource: string): Promise<void>
  /** the recorded work came to nothing (nothing was sent): the key is released with the error answer */
  unbind(tx: Tx): Promise<void>
}

/**
 * What a service verb gets, whoever calls it (a route, an agent or merchant key, a job, the
 * CLI): the dependencies, who acts (`A`), the tenant it acts in and the request id. Never
 * the HTTP context. The tenant is the authenticated one, read once with the credentials
 * (src/db/callers.ts for a user's token; a key's own check): verbs take it from here
 * (tenants' `tenantOf`, `tenantSettings`) and never read it again. `Ctx` is a signed-in
 * user's; agent payments' `Scope` is the same context with an agent, a merchant, a user or
 * the system as the actor; the CLI's has none.
 */
export interface VerbContext<A> {
  deps: Deps
  actor: A
  /** the caller's tenant as read with its credentials; null for a platform admin */
  tenant: SignedTenant | null
  requestId: string
  /** set on routes with the `idempotent` option when the request carries a key */
  idempotency?: IdempotencyBinding
  /** the open write transaction, when the verb runs inside one (see withTransaction) */
  tx?: Tx
}

/** The context of a verb a signed-in user calls. */
export type Ctx = VerbContext<Actor>

/**
 * A context whose verb runs inside an open write transaction: what a verb called by another
 * verb's write gets, so the work it records commits or rolls back with its caller's.
 */
export type InWrite<C extends VerbContext<unknown> = VerbContext<unknown>> = C & { tx: Tx }

/**
 * Runs `fn` in the context's open write transaction, or in a new one when there is none, so a
 * verb called inside another's write joins it rather than opening a second. `fn` gets the
 * transaction and the context that carries it, to hand on to the verbs it calls.
 */
export function withTransaction<C extends VerbContext<unknown>, T>(ctx: C, fn: (tx: Tx, ctx: InWrite<C>) => Promise<T>): Promise<T> {
  if (ctx.tx) return fn(ctx.tx, ctx as InWrite<C>)
  return ctx.deps.database.write((tx) => fn(tx, { ...ctx, tx }))
}

/** `wallet: { option: "create" }` at registration: a custodial wallet made in the same transaction as the user. */
export interface RegistrationWallet {
  option: 'create'
  chain?: string
}

/** What registration needs from other modules; built in src/services.ts. */
export interface RegistrationCollaborators {
  /** the reason to refuse a password (breached, when the tenant checks), or null */
  checkPassword(tenant: SignedTenant, password: string): Promise<string | null>
  wallets: {
    /** throws the 4xx a bad wallet request answers, before anything is written */
    validate(tenant: SignedTenant, wallet: RegistrationWallet): Promise<void>
    /** the wallet's answer fields, written in the registration's transaction; undefined when the tenant's wallets are not custodial */
    create(ctx: InWrite<RegistrationContext>, user: UserRow, chain: string): Promise<Record<string, unknown> | undefined>
  }
  /** on `mpc` tenants the wallet option opens a DKG session instead of making a wallet */
  mpc: {
    /** throws the 4xx a chain the DKG cannot use answers, before anything is written */
    validate(tenant: SignedTenant, chain: string): Promise<void>
    /** the DKG session's answer (`mpcDkg`), written in the registration's transaction; undefined on other tenants */
    start(ctx: InWrite<RegistrationContext>, user: UserRow, chain: string): Promise<Record<string, unknown> | undefined>
  }
}

/** Registration's context: no one is signed in yet; the tenant is the one that signed the request. */
export type RegistrationContext = VerbContext<null> & { tenant: SignedTenant }

/** Ends every session of a user, in the caller's write transaction when it has one (a deleted user signs out everywhere). */
export type SessionRevoker = (ctx: VerbContext<unknown>, user: { id: string; tenantId: string | null }, now: number) => Promise<void>

/** User ids owning a wallet whose address or id is `q`, for the operators' user search. */
export type WalletOwnerLookup = (tenantId: string, q: string) => Promise<string[]>

/** One item of the unified feed (`GET /v1/transactions/aggregated/`), whichever module it comes from. */
export interface FeedItemView {
  id: string
  kind: 'send' | 'swap' | 'approval' | 'supply' | 'withdraw' | 'dapp' | 'deposit' | 'payout'
  direction: 'out' | 'in' | 'swap'
  status: string
  chain: string
  isTestnet: boolean
  amount: string
  token: { address: string | null; symbol: string; decimals: number }
  counterparty: string | null
  txHash: string | null
  walletId: string | null
  simulation: boolean
  createdAt: string
  updatedAt: string
}

/** The feed's filters; `status` in the feed's words (`awaiting_signature`, `pending`, `confirmed`, `failed`). */
export interface FeedFilter {
  walletId?: string
  /** family chain id */
  chain?: string
  /** a testnet's registry id was named: that chain's testnet only */
  testnetOnly?: boolean
  status?: string
}

/**
 * Movements another module adds to the unified feed (the bank ramp's deposits and payouts),
 * built in src/services.ts, so the transactions module never reads another module's tables.
 */
export interface FeedSource {
  /** the item id prefix this source answers for (`ramp:`) */
  prefix: string
  /** the user's `take` newest items matching `filter`, newest first, and how many match in all */
  list(tenantId: string, userId: string, filter: FeedFilter, take: number): Promise<{ items: FeedItemView[]; total: number }>
  /** one of the user's items by the id after the prefix, or null */
  item(tenantId: string, userId: string, id: string): Promise<FeedItemView | null>
}

/** The operations a tenant may put behind a passkey approval (tenant setting `passkeys.stepUp.operations`). */
export type StepUpOperation = 'key_export' | 'sign_in_method' | 'email_change' | 'send' | 'payout' | 'agent_execution_approval' | 'agent_api_key'

/** The request a step-up check sees: its method, path, exact body bytes, approval header and (sends, payouts) amount. */
export interface StepUpRequest {
  method: string
  path: string
  body: Uint8Array | undefined
  approval: string | null
  /** `send` and `payout`: the amount, compared with the tenant's `amountAbove`; undefined: not known from the body (always guarded) */
  amount?: string
}

/**
 * The passkeys module's step-up check (wired in src/services.ts; the guard in src/http/step-up.ts
 * calls it): passes, or throws the 403 that says a passkey approval is needed or is not valid.
 */
export type StepUpCheck = (ctx: Ctx, operations: StepUpOperation[], request: StepUpRequest) => Promise<void>
