/** The gas sponsorship module's refusals, each with its code (src/lib/error-codes.ts). */
import { AppError, BadRequestError, ConflictError, ForbiddenError, ServiceUnavailableError } from '../../lib/errors'

export const notConfigured = (network: string, what: string) =>
  new ServiceUnavailableError(`Gas sponsorship is off on ${network}: ${what} is not configured`, { code: 'GAS_SPONSORSHIP_NOT_CONFIGURED' })
export const policyOff = (network: string) => new ForbiddenError(`The tenant does not sponsor gas on ${network}`, { code: 'GAS_POLICY_OFF' })
export const notSponsored = (why: string) => new ForbiddenError(`The tenant's gas policy does not sponsor this operation: ${why}`, { code: 'GAS_OPERATION_NOT_SPONSORED' })
export const senderNotAllowed = () => new ForbiddenError('The sender is not a wallet of the signed-in user', { code: 'GAS_SENDER_NOT_ALLOWED' })
export const costAboveLimit = (max: bigint, limit: bigint) =>
  new ForbiddenError(`The operation may cost up to ${max} wei of gas, above the ${limit} wei the policy sponsors for one operation`, { code: 'GAS_COST_ABOVE_LIMIT' })
export const costAboveLimitUsd = (max: string, limit: string) =>
  new ForbiddenError(`The operation may cost up to ${max} USD of gas, above the ${limit} USD the policy sponsors for one operation`, { code: 'GAS_COST_ABOVE_LIMIT' })
export const priceUnavailable = (network: string) => new ServiceUnavailableError(
  `The gas policy on ${network} has limits in USD and no USD price of the native coin is available: nothing is sponsored until there is one`,
  { code: 'GAS_PRICE_UNAVAILABLE' },
)
export const policyInvalid = (message: string) => new BadRequestError(message, { code: 'GAS_POLICY_INVALID' })
export const depositLow = (network: string) =>
  new ServiceUnavailableError(`Gas sponsorship is paused on ${network}: the paymaster's deposit is below its threshold`, { code: 'PAYMASTER_DEPOSIT_LOW' })
export const bundlerUnavailable = (network: string) => new ServiceUnavailableError(`The bundler of ${network} cannot be reached`, { code: 'BUNDLER_UNAVAILABLE' })
export const userOpRejected = (reason: string) => new BadRequestError(`The bundler refused the user operation: ${reason}`, { code: 'USER_OPERATION_REJECTED' })

export const delegationPending = (network: string, transactionId: string | null) => new ConflictError(
  `The wallet's first sponsored operation on ${network}, which delegates it to Simple7702Account (EIP-7702), is still in flight: ` +
    'a bundler takes one delegating operation per sender. Send again once it is mined (or, prepared and unsigned, once it expired)',
  { code: 'GAS_DELEGATION_PENDING', details: { transactionId } },
)

/** 429 with the code: a limit of the policy is used up until the period ends */
export class GasLimitReached extends AppError {
  constructor(readonly retryAfterSeconds: number, message: string, code: 'GAS_USER_DAILY_LIMIT' | 'GAS_TENANT_MONTHLY_BUDGET') {
    super(429, 'Error', message, { code })
  }
}
