/**
 * How a schema error names its setting: the environment variable (with its bounds), and the
 * settings whose values never go into a message.
 */
import { ENGINE_RAM_MAX_MIB } from '../lib/engine-memory'
import { ValueErrorType } from '@sinclair/typebox/value'
import { LOG_LEVELS } from '../lib/logger'

/**
 * Values never put in a message: these, and any setting whose name says it is a secret,
 * password, token or key (isSecretPath), so a new secret setting is hidden without being listed.
 */
export const SECRET_PATHS = new Set([
  '/jwtSecret',
  '/metricsToken',
  '/bootstrapAdminPassword',
  '/databaseAuthToken',
  '/masterKey',
  '/masterKeyPrevious',
  '/pricesApiKey',
  '/bankRampSimulatorPrivateKey',
  '/sandboxFaucetPrivateKey',
  '/lifiApiKey',
  '/swapGaslessRelayerPrivateKey',
  '/fcmServiceAccount',
  '/fcmServiceAccount/privateKey',
  '/fcmServiceAccount/clientEmail',
  '/fcmServiceAccount/tokenUri',
])

const ENV_NAMES: Record<string, string> = {
  '/port': 'PORT', '/databaseSyncIntervalMs': 'DATABASE_SYNC_INTERVAL_MS (50-3600000)', '/databaseTimeoutMs': 'DATABASE_TIMEOUT_MS (100-120000)',
  '/databaseSyncMaxBehind': 'DATABASE_SYNC_MAX_BEHIND (0-100000)',
  '/databaseMaxWrites': 'DATABASE_MAX_WRITES (1-10000)', '/databaseWriteWaitMs': 'DATABASE_WRITE_WAIT_MS (0-120000)',
  '/role': 'SLIPWAY_ROLE (all, api or worker)', '/jwtSecret': 'JWT_SECRET (at least 32 characters)',
  '/bootstrapAdminUsername': 'BOOTSTRAP_ADMIN_USERNAME (3-100 of letters, digits, _ and -)',
  '/bootstrapAdminPassword': 'BOOTSTRAP_ADMIN_PASSWORD (at least 8 characters)',
  '/logLevel': `LOG_LEVEL (${LOG_LEVELS.join(', ')})`, '/accessTokenTtlSeconds': 'ACCESS_TOKEN_TTL_SECONDS',
  '/refreshTokenTtlSeconds': 'REFRESH_TOKEN_TTL_SECONDS', '/rpcTimeoutMs': 'RPC_TIMEOUT_MS', '/mailFrom': 'MAIL_FROM',
  '/metricsToken': 'METRICS_TOKEN (at least 16 characters)', '/shutdownGraceMs': 'SHUTDOWN_GRACE_MS', '/jobClaimLeaseMs': 'JOB_CLAIM_LEASE_MS (1000-3600000)',
  '/engineRamMib': `ENGINE_RAM_MIB (0-${ENGINE_RAM_MAX_MIB})`, '/masterKeyVersion': 'MASTER_KEY_VERSION (1-1000000)',
  '/hibpTimeoutMs': 'HIBP_TIMEOUT_MS (100 to 60000)', '/hibpOnError': 'HIBP_ON_ERROR (reject or allow)',
  '/txMaxFeeBumpPercent': 'TX_MAX_FEE_BUMP_PERCENT (0-1000)', '/txMaxResends': 'TX_MAX_RESENDS (0-20)', '/txDropAfterMs': 'TX_DROP_AFTER_MS', '/txRefreshFirstMs': 'TX_REFRESH_FIRST_MS (50-60000)',
  '/passwordHashMemoryKib': 'PASSWORD_HASH_MEMORY_KIB (64-1048576)',
  '/agentPaymentsApprovalTtlMs': 'AGENT_PAYMENTS_APPROVAL_TTL_MS (1000-2592000000)',
  '/agentPaymentsX402TimeoutMs': 'AGENT_PAYMENTS_X402_TIMEOUT_MS (1000-60000)', '/agentPaymentsX402MaxBodyBytes': 'AGENT_PAYMENTS_X402_MAX_BODY_BYTES (0-1048576)',
  '/agentPaymentsX402MaxAuthorizationSeconds': 'AGENT_PAYMENTS_X402_MAX_AUTHORIZATION_SECONDS (10-3600)',
  '/agentPaymentsX402SettleLookMs': 'AGENT_PAYMENTS_X402_SETTLE_LOOK_MS (100-60000)', '/preparedTxTtlSeconds': 'PREPARED_TX_TTL_SECONDS (10-86400)',
  '/bankRampTimeoutMs': 'BANK_RAMP_TIMEOUT_MS (100-120000)', '/bankRampSimulator': 'BANK_RAMP_SIMULATOR (embedded or off)',
  '/bankRampSimulatorTokenAddress': 'BANK_RAMP_SIMULATOR_TOKEN_ADDRESS (0x and 40 hex)', '/bankRampSimulatorPrivateKey': 'BANK_RAMP_SIMULATOR_PRIVATE_KEY (0x and 64 hex; never printed)',
  '/sandboxFaucet': 'SANDBOX_FAUCET (embedded or off)', '/sandboxFaucetPrivateKey': 'SANDBOX_FAUCET_PRIVATE_KEY (0x and 64 hex; never printed)',
  '/maxBodyBytes': 'MAX_BODY_BYTES (1024 to 1073741824)',
  '/mpcRelayUrl': 'MPC_RELAY_URL', '/mpcSessionTtlSeconds': 'MPC_SESSION_TTL_SECONDS (30 to 3600)',
  '/cardOnrampSandbox': 'CARD_ONRAMP_SANDBOX (embedded or off)', '/cardOnrampTimeoutMs': 'CARD_ONRAMP_TIMEOUT_MS (100-120000)',
  '/swapAggregator': 'SWAP_AGGREGATOR (embedded or off)', '/lifiApiKey': 'LIFI_API_KEY (never printed)', '/swapAggregatorTimeoutMs': 'SWAP_AGGREGATOR_TIMEOUT_MS (100-120000)',
  '/sandboxSwapRouterAddress': 'SANDBOX_SWAP_ROUTER_ADDRESS (0x and 40 hex)',
  '/swapGaslessRelayerPrivateKey': 'SWAP_GASLESS_RELAYER_PRIVATE_KEY (0x and 64 hex; never printed)',
  '/paymasterSignerPrivateKey': 'PAYMASTER_SIGNER_PRIVATE_KEY (0x and 64 hex; imported sealed on first use; never printed)', '/paymasterMinDepositWei': 'PAYMASTER_MIN_DEPOSIT_WEI (wei, an integer)',
  '/paymasterValiditySeconds': 'PAYMASTER_VALIDITY_SECONDS (60-86400)',
  '/swapGaslessRouterAddress': 'SWAP_GASLESS_ROUTER_ADDRESS (0x and 40 hex)',
  '/swapGaslessDailyGasPerTenantWei': 'SWAP_GASLESS_DAILY_GAS_PER_TENANT_WEI (wei, an integer)',
  '/swapGaslessDailyGasPerUserWei': 'SWAP_GASLESS_DAILY_GAS_PER_USER_WEI (wei, an integer)',
  '/pricesSandbox': 'PRICES_SANDBOX (embedded or off)', '/pricesApiKey': 'PRICES_API_KEY (never printed)', '/pricesApiKeyHeader': 'PRICES_API_KEY_HEADER (a header name: letters, digits and -)',
  '/pricesTimeoutMs': 'PRICES_TIMEOUT_MS (100-120000)', '/portfolioSnapshots': 'PORTFOLIO_SNAPSHOTS (daily or off)',
  '/fcmProjectId': 'FCM_PROJECT_ID (letters, digits, and : . _ -)', '/fcmTimeoutMs': 'FCM_TIMEOUT_MS (100-120000)',
  '/fcmServiceAccount/clientEmail': 'FCM_SERVICE_ACCOUNT_JSON or _FILE: client_email', '/fcmServiceAccount/privateKey': 'FCM_SERVICE_ACCOUNT_JSON or _FILE: private_key (never printed)',
}
export function envNameOf(path: string) {
  if (path.startsWith('/aavePools/')) return `AAVE_POOL_${path.slice('/aavePools/'.length).toUpperCase().replace(/-/g, '_')} (0x and 40 hex)`
  return ENV_NAMES[path] ?? path.replace(/^\//, '')
}

export const isSecretPath = (path: string) => SECRET_PATHS.has(path) || /secret|password|token|key|credential|account/i.test(path)

/**
 * A schema error in plain words: what the setting must be, not TypeBox's wording ("Expected
 * union value"). The setting's name already carries its allowed values or bounds.
 */
export function plainMessage(err: { type: number; message: string; schema: object }): string {
  const bounds = err.schema as { minimum?: number; maximum?: number; minLength?: number; maxLength?: number }
  switch (err.type) {
    case ValueErrorType.Union: return 'is not one of the allowed values'
    case ValueErrorType.Literal: return 'is not the allowed value'
    case ValueErrorType.Integer: return 'must be a whole number'
    case ValueErrorType.Number: return 'must be a number'
    case ValueErrorType.Boolean: return 'must be true or false'
    case ValueErrorType.String: return 'must be set as text'
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum: return `must be at least ${bounds.minimum}`
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum: return `must be at most ${bounds.maximum}`
    case ValueErrorType.StringFormat:
    case ValueErrorType.StringPattern: return 'is not in the expected format'
    case ValueErrorType.StringMinLength: return `must be at least ${bounds.minLength} characters long`
    case ValueErrorType.StringMaxLength: return `must be at most ${bounds.maxLength} characters long`
    case ValueErrorType.ObjectRequiredProperty: return 'is required'
    default: return err.message
  }
}
