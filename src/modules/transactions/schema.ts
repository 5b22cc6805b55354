/**
 * Blockchain transactions (sends and simulated swaps), transactions prepared for client
 * signing, and the per-wallet nonce counters that keep concurrent custodial sends from
 * reusing or skipping a nonce. Amounts, gas and fees are integer strings (TEXT).
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export const TX_STATUSES = ['awaiting_signature', 'pending', 'confirmed', 'failed'] as const
export type TxStatus = (typeof TX_STATUSES)[number]
export const TX_TYPES = ['send', 'swap', 'approval', 'supply', 'withdraw', 'dapp'] as const

export const transactions = sqliteTable('transactions', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  walletId: text('wallet_id').notNull(),
  /**
   * `send`, `swap` (simulated or executed), `approval` (an ERC-20 approval for a swap or a lending
   * supply), `supply` or `withdraw` (a lending pool's, modules/lending), `dapp` (a client-signed
   * transaction broadcast with `POST /v1/dapps/broadcast`)
   */
  type: text('type', { enum: TX_TYPES }).notNull(),
  /** family chain id */
  chain: text('chain').notNull(),
  isTestnet: integer('is_testnet', { mode: 'boolean' }).notNull(),
  /** registry id of the network (`ethereum`, `sepolia`) */
  network: text('network').notNull(),
  fromAddress: text('from_address').notNull(),
  toAddress: text('to_address'),
  /** smallest unit, integer string */
  amount: text('amount').notNull(),
  /** contract or mint; null for the native coin */
  tokenAddress: text('token_address'),
  tokenSymbol: text('token_symbol').notNull(),
  tokenDecimals: integer('token_decimals').notNull(),
  status: text('status', { enum: TX_STATUSES }).notNull(),
  requiresClientSigning: integer('requires_client_signing', { mode: 'boolean' }).notNull(),
  txHash: text('tx_hash'),
  /** hashes of earlier submissions replaced by a fee bump, oldest first */
  previousHashes: text('previous_hashes', { mode: 'json' }).notNull().$type<string[]>(),
  /** the signed transaction as submitted (public once broadcast), for rebroadcasts */
  rawTx: text('raw_tx'),
  /** EIP-155 chain id signed for (the one the RPC reports) */
  chainId: integer('chain_id'),
  nonce: integer('nonce'),
  gasLimit: text('gas_limit'),
  maxFeePerGas: text('max_fee_per_gas'),
  maxPriorityFeePerGas: text('max_priority_fee_per_gas'),
  /** max fee at the first submission: the fee bump ceiling is relative to it */
  initialMaxFeePerGas: text('initial_max_fee_per_gas'),
  /** gas used × effective gas price once mined (smallest unit of the native coin) */
  feePaid: text('fee_paid'),
  confirmations: integer('confirmations').notNull(),
  blockNumber: integer('block_number'),
  /** Unix ms */
  blockTimestamp: integer('block_timestamp'),
  failureReason: text('failure_reason'),
  resendCount: integer('resend_count').notNull(),
  /** last time the signed transaction was handed to the RPC (Unix ms) */
  submittedAt: integer('submitted_at'),
  simulation: integer('simulation', { mode: 'boolean' }).notNull(),
  quoteId: text('quote_id'),
  metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
  /** a sponsored send (gas sponsorship): the ERC-4337 user operation's hash; `txHash` is the bundle's once mined */
  userOpHash: text('user_op_hash'),
  /** the signed user operation as the bundler takes it (JSON), to resubmit it unchanged when the bundler dropped it */
  userOp: text('user_op', { mode: 'json' }).$type<Record<string, unknown>>(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  index('transactions_user_idx').on(t.tenantId, t.userId, t.createdAt),
  index('transactions_wallet_idx').on(t.tenantId, t.walletId, t.createdAt),
  index('transactions_status_idx').on(t.status, t.updatedAt),
  // what a wallet has in flight (holds.ts): its pending sends and those mined after a block
  index('transactions_wallet_status_idx').on(t.tenantId, t.walletId, t.status, t.blockNumber),
])

/** A transaction prepared for the client to sign; consumed once by broadcast. */
export const preparedTransactions = sqliteTable('prepared_transactions', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  walletId: text('wallet_id').notNull(),
  transactionId: text('transaction_id').notNull(),
  /** `evm-userop`, `evm-7702-auth`: an MPC wallet's sponsored user operation and its first EIP-7702 authorization, one hash each (families/evm-sponsored-mpc.ts) */
  family: text('family', { enum: ['evm', 'solana', 'evm-userop', 'evm-7702-auth'] }).notNull(),
  /** EVM: the unsigned EIP-1559 serialization (hex); Solana: the serialized message (base64) */
  unsigned: text('unsigned').notNull(),
  /** EVM: keccak256 of `unsigned` (what the client signs); Solana: same as `unsigned` */
  signingPayload: text('signing_payload').notNull(),
  status: text('status', { enum: ['prepared', 'used'] }).notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('prepared_transactions_tx_idx').on(t.tenantId, t.transactionId)])

/**
 * The next nonce of a custodial wallet on one network. Reserved with one write
 * transaction (SQLite serialises writers across processes sharing the file), so two
 * API processes never hand out the same nonce. `freeNonces` holds nonces reserved by
 * sends that never reached the chain; the next send takes the lowest one first, so no
 * gap is left behind.
 */
export const walletNonces = sqliteTable('wallet_nonces', {
  tenantId: text('tenant_id').notNull(),
  walletId: text('wallet_id').notNull(),
  network: text('network').notNull(),
  nextNonce: integer('next_nonce').notNull(),
  freeNonces: text('free_nonces', { mode: 'json' }).notNull().$type<number[]>(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.walletId, t.network] })])

/**
 * An amount held against a custodial wallet's balance before the send that spends it exists
 * (a bank ramp payout holds its crypto in the write transaction that records the payout).
 * Once the send is recorded, `transactionId` names it and the send itself holds the amount
 * while it is pending (holds.ts). A hold with no send is released (`releasedAt`) when its
 * owner gives up, and counts no more after `expiresAt` (its process stopped before sending).
 */
export const walletHolds = sqliteTable('wallet_holds', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  walletId: text('wallet_id').notNull(),
  /** registry id of the network */
  network: text('network').notNull(),
  /** contract or mint; null for the native coin */
  tokenAddress: text('token_address'),
  /** smallest unit, integer string */
  amount: text('amount').notNull(),
  /** what holds it (`ramp_payout`) and that record's id */
  purpose: text('purpose').notNull(),
  refId: text('ref_id').notNull(),
  transactionId: text('transaction_id'),
  releasedAt: integer('released_at'),
  expiresAt: integer('expires_at').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('wallet_holds_wallet_idx').on(t.tenantId, t.walletId, t.network)])

export type TransactionRow = typeof transactions.$inferSelect
export type HoldRow = typeof walletHolds.$inferSelect
export type PreparedRow = typeof preparedTransactions.$inferSelect
