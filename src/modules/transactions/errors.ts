/**
 * Blockchain-operation errors: `error: BlockchainError` with a `code`, a boolean
 * `retryable` and, where it helps, a `suggestedAction` (all top-level in the envelope).
 */
import { AppError } from '../../lib/errors'
import type { ErrorCode } from '../../lib/error-codes'

export function blockchainError(status: number, code: ErrorCode, message: string, retryable: boolean, suggestedAction?: string) {
  return new AppError(status, 'BlockchainError', message, { code, extra: suggestedAction ? { retryable, suggestedAction } : { retryable } })
}

export const preparedNotFound = () => blockchainError(404, 'PREPARED_TX_NOT_FOUND', 'Prepared transaction not found', false, 'Create the transaction again with POST /v1/transactions/')
export const preparedUsed = () => blockchainError(409, 'PREPARED_TX_ALREADY_USED', 'This prepared transaction was already broadcast', false, 'Read its status with GET /v1/transactions/{id}/status')
export const preparedExpired = () => blockchainError(
  410,
  'PREPARED_TX_EXPIRED',
  'This prepared transaction has expired',
  false,
  'Create the transaction again with POST /v1/transactions/ and sign the new hash',
)
export const signatureDecodeFailed = (why: string) => blockchainError(
  400,
  'SIGNATURE_DECODE_FAILED',
  `The signature could not be decoded: ${why}`,
  false,
  'Send `signature` as 65-byte hex or { r, s, yParity }, or `signedTransaction` as the signed raw transaction',
)
export const wrongSigner = () => blockchainError(
  400,
  'WRONG_SIGNER',
  'The signature was not made by the wallet\'s key',
  false,
  'Sign the returned hash with the key of the wallet that prepared the transaction',
)
export const wouldFail = (reason: string) => blockchainError(
  400,
  'TRANSACTION_WOULD_FAIL',
  `The network refuses this transaction: ${reason}`,
  false,
  'Check the wallet\'s balance of the token and of the native coin for gas',
)
