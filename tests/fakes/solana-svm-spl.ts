/**
 * What the LiteSVM-backed Solana node (tests/fakes/solana-svm.ts) needs to speak the RPC's
 * shapes: the SPL Token program's account layouts (a mint, 82 bytes; a token account, 165
 * bytes) written for `setAccount` and read back as `jsonParsed`, the associated token account
 * of an owner, and LiteSVM's transaction errors as the RPC names them (`data.err`, and the
 * message of a refused preflight).
 */
import type { ReadonlyUint8Array } from '@solana/kit'
import { PublicKey } from '@solana/web3.js'

export const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
export const ATA_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')
export const MINT_SIZE = 82
export const TOKEN_ACCOUNT_SIZE = 165

export const associatedTokenAddress = (owner: PublicKey, mint: PublicKey) =>
  PublicKey.findProgramAddressSync([owner.toBuffer(), TOKEN_PROGRAM.toBuffer(), mint.toBuffer()], ATA_PROGRAM)[0]

/** An initialized mint: `authority` mints, no freeze authority. */
export function mintData(authority: PublicKey, decimals: number, supply = 0n): Uint8Array {
  const b = Buffer.alloc(MINT_SIZE)
  b.writeUInt32LE(1, 0)
  authority.toBuffer().copy(b, 4)
  b.writeBigUInt64LE(supply, 36)
  b[44] = decimals
  b[45] = 1
  return b
}

/** An initialized token account of `owner` for `mint` holding `amount`, no delegate. */
export function tokenAccountData(mint: PublicKey, owner: PublicKey, amount: bigint): Uint8Array {
  const b = Buffer.alloc(TOKEN_ACCOUNT_SIZE)
  mint.toBuffer().copy(b, 0)
  owner.toBuffer().copy(b, 32)
  b.writeBigUInt64LE(amount, 64)
  b[108] = 1
  return b
}

export interface TokenAccount { mint: string; owner: string; amount: bigint; state: number }

export function readTokenAccount(data: Uint8Array | ReadonlyUint8Array): TokenAccount | null {
  if (data.length !== TOKEN_ACCOUNT_SIZE) return null
  const b = Buffer.from(data as Uint8Array)
  return { mint: new PublicKey(b.subarray(0, 32)).toBase58(), owner: new PublicKey(b.subarray(32, 64)).toBase58(), amount: b.readBigUInt64LE(64), state: b[108]! }
}

export function readMint(data: Uint8Array | ReadonlyUint8Array): { decimals: number; supply: bigint; mintAuthority: string | null } | null {
  if (data.length !== MINT_SIZE || data[45] !== 1) return null
  const b = Buffer.from(data as Uint8Array)
  return { decimals: b[44]!, supply: b.readBigUInt64LE(36), mintAuthority: b.readUInt32LE(0) === 1 ? new PublicKey(b.subarray(4, 36)).toBase58() : null }
}

/** A token amount as the RPC's `jsonParsed` shapes it. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const whole = amount / 10n ** BigInt(decimals)
  const frac = (amount % 10n ** BigInt(decimals)).toString().padStart(decimals, '0').replace(/0+$/, '')
  const uiAmountString = frac ? `${whole}.${frac}` : `${whole}`
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString }
}

// LiteSVM's error enums exist only as types (const enums): their names, in their order.
const TX_ERRORS = ['AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee', 'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee', 'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance', 'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount', 'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks', 'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData', 'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit', 'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded', 'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled']
const IX_ERRORS = ['GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall', 'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized', 'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend', 'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex', 'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable', 'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError', 'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId', 'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded', 'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable', 'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded', 'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError']

/** The messages the RPC gives the commonest refusals (after "Transaction simulation failed: "). */
const TX_MESSAGES: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  SignatureFailure: 'Transaction did not pass signature verification',
}

export type RpcTransactionError = string | Record<string, unknown>

/** A LiteSVM transaction error as the RPC's JSON (`"InsufficientFundsForFee"`, `{ InstructionError: [1, { Custom: 1 }] }`) and its message. */
export function rpcError(err: unknown): { err: RpcTransactionError; message: string } {
  if (typeof err === 'number') {
    const name = TX_ERRORS[err] ?? `TransactionError(${err})`
    return { err: name, message: TX_MESSAGES[name] ?? name }
  }
  const e = err as { index?: number; accountIndex?: number; err?: () => unknown; constructor: { name: string } }
  if (e.constructor.name === 'TransactionErrorInstructionError' && e.err) {
    const inner = e.err() as number | { code?: number }
    const detail = typeof inner === 'number' ? IX_ERRORS[inner] ?? `InstructionError(${inner})` : { Custom: inner.code }
    const text = typeof detail === 'string' ? detail : `custom program error: 0x${(detail.Custom ?? 0).toString(16)}`
    return { err: { InstructionError: [e.index, detail] }, message: `Error processing Instruction ${e.index}: ${text}` }
  }
  if (e.constructor.name === 'TransactionErrorInsufficientFundsForRent') {
    return { err: { InsufficientFundsForRent: { account_index: e.accountIndex } }, message: `Transaction results in an account (${e.accountIndex}) with insufficient funds for rent` }
  }
  const name = e.constructor.name.replace(/^TransactionError/, '')
  return { err: { [name]: e.index ?? e.accountIndex ?? null }, message: name }
}
