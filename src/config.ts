/**
 * Every environment variable Slipway reads, parsed and validated once at start-up.
 * Nothing else in the code base reads `process.env`.
 */
import { Value } from '@sinclair/typebox/value'
import { FCM_DEFAULT_BASE_URL } from './adapters/push/fcm'
import { ClientIpResolver } from './http/client-ip'
import { ENGINE_RAM_DEFAULT_MIB } from './lib/engine-memory'
import { PASSWORD_HASH_MEMORY_KIB } from './lib/passwords'
import { sandboxMode, type SandboxMode } from './sandbox/policy'
import { envNameOf, isSecretPath, plainMessage } from './config/env-names'
import {
  blankToUndefined, boolVar, decodeKey, type Env, intVar, isHttpUrl, parseAavePools, parseBundlerUrls, parsePaymasterAddresses, parseDevRoutes, parseFcm,
  parsePreviousKeys, parseRpcUrls,
} from './config/parse'
import { type Config, ConfigSchema } from './config/schema'
import { parsePlacement } from './config/placement'

export { type Config, ConfigSchema } from './config/schema'
export { decodeKey } from './config/parse'

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

/** What `npm run devnet` wrote into `.env.devnet` and this process read: the file and the names of its settings. */
function devnetSettings(env: Env): Config['devnet'] {
  const file = blankToUndefined(env.SLIPWAY_DEVNET)
  if (!file) return undefined
  return { file, settings: (blankToUndefined(env.SLIPWAY_DEVNET_SETTINGS) ?? '').split(',').map((s) => s.trim()).filter(Boolean) }
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = []
  const port = intVar(env, 'PORT', 3000, problems)
  const publicBaseUrl = blankToUndefined(env.PUBLIC_BASE_URL) ?? `http://localhost:${port}`
  if (!isHttpUrl(publicBaseUrl)) problems.push(`PUBLIC_BASE_URL: "${publicBaseUrl}" is not an http(s) URL`)
  const databaseUrl = blankToUndefined(env.DATABASE_URL) ?? 'file:./data/slipway.db'
  if (!/^(file:|:memory:$|libsql:|https?:|wss?:)/.test(databaseUrl)) {
    problems.push(`DATABASE_URL: "${databaseUrl}" must be a file: path, :memory:, or a libsql://, http(s):// or ws(s):// URL`)
  }
  const databaseSyncUrl = blankToUndefined(env.DATABASE_SYNC_URL)
  if (databaseSyncUrl) {
    if (!/^(libsql:|https?:|wss?:)/.test(databaseSyncUrl)) problems.push(`DATABASE_SYNC_URL: "${databaseSyncUrl}" must be a libsql://, http(s):// or ws(s):// URL`)
    if (!databaseUrl.startsWith('file:')) problems.push('DATABASE_SYNC_URL needs DATABASE_URL to be a local file: path (the embedded replica)')
    // A key generated beside each replica would differ per process, and each would fail to open what the others sealed.
    if (!blankToUndefined(env.MASTER_KEY)) problems.push('DATABASE_SYNC_URL needs MASTER_KEY: every process sharing the primary must seal with the same key')
  }
  const tenantPlacement = parsePlacement(blankToUndefined(env.TENANT_PLACEMENT), problems)
  if (tenantPlacement && databaseSyncUrl) problems.push('TENANT_PLACEMENT with DATABASE_SYNC_URL is not supported yet: placed tenants are reached on their primaries (docs/scaling.md)')
  const smtpUrl = blankToUndefined(env.SMTP_URL)
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) problems.push(`SMTP_URL: must start with smtp:// or smtps://`)
  const nodeEnv = blankToUndefined(env.NODE_ENV) ?? 'development'
  const webhookDevRoutes = parseDevRoutes(blankToUndefined(env.WEBHOOK_DEV_ROUTES), problems)
  if (Object.keys(webhookDevRoutes).length && nodeEnv === 'production') {
    problems.push('WEBHOOK_DEV_ROUTES is for local development and tests only and is refused when NODE_ENV=production')
  }
  const passwordHashMemoryKib = intVar(env, 'PASSWORD_HASH_MEMORY_KIB', PASSWORD_HASH_MEMORY_KIB, problems)
  if (passwordHashMemoryKib < PASSWORD_HASH_MEMORY_KIB && nodeEnv === 'production') {
    problems.push(`PASSWORD_HASH_MEMORY_KIB below ${PASSWORD_HASH_MEMORY_KIB} (OWASP's floor for argon2id) is for tests only and is refused when NODE_ENV=production`)
  }
  const username = blankToUndefined(env.BOOTSTRAP_ADMIN_USERNAME)
  const password = blankToUndefined(env.BOOTSTRAP_ADMIN_PASSWORD)
  if ((username === undefined) !== (password === undefined)) {
    problems.push('BOOTSTRAP_ADMIN_USERNAME and BOOTSTRAP_ADMIN_PASSWORD must be set together')
  }
  const masterKey = blankToUndefined(env.MASTER_KEY)
  const trusted = (blankToUndefined(env.TRUSTED_PROXIES) ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  const badProxies = ClientIpResolver.validate(trusted)
  if (badProxies.length) problems.push(`TRUSTED_PROXIES: not an IP address or CIDR range: ${badProxies.join(', ')}`)
  if (masterKey !== undefined && decodeKey(masterKey) === null) {
    problems.push('MASTER_KEY: must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)')
  }
  const masterKeyVersion = intVar(env, 'MASTER_KEY_VERSION', 1, problems)
  const masterKeyPrevious = parsePreviousKeys(blankToUndefined(env.MASTER_KEY_PREVIOUS), masterKeyVersion, problems)
  if (masterKey === undefined && (masterKeyVersion !== 1 || Object.keys(masterKeyPrevious).length)) {
    problems.push('MASTER_KEY_VERSION and MASTER_KEY_PREVIOUS need MASTER_KEY (a generated master.key is version 1; to rotate it, pass it in MASTER_KEY_PREVIOUS as 1:<key>)')
  }
  let host = 'publicBaseUrl'
  try { host = new URL(publicBaseUrl).hostname } catch { /* reported above */ }

  const sandboxInProduction = boolVar(env, 'SANDBOX_IN_PRODUCTION', problems)
  const bankRampSetting = blankToUndefined(env.BANK_RAMP_SIMULATOR)
  // a value other than embedded or off is reported by the schema check below, under its own name
  const bankRampSimulator = bankRampSetting === undefined || bankRampSetting === 'embedded' || bankRampSetting === 'off'
    ? sandboxMode('BANK_RAMP_SIMULATOR', bankRampSetting, { nodeEnv, sandboxInProduction })
    : { mode: bankRampSetting as SandboxMode }
  if (bankRampSimulator.problem) problems.push(bankRampSimulator.problem)
  const faucetSetting = blankToUndefined(env.SANDBOX_FAUCET)
  const sandboxFaucet = faucetSetting === undefined || faucetSetting === 'embedded' || faucetSetting === 'off'
    ? sandboxMode('SANDBOX_FAUCET', faucetSetting, { nodeEnv, sandboxInProduction })
    : { mode: faucetSetting as SandboxMode }
  if (sandboxFaucet.problem) problems.push(sandboxFaucet.problem)
  const swapSetting = blankToUndefined(env.SWAP_AGGREGATOR)
  const swapAggregator = swapSetting === undefined || swapSetting === 'embedded' || swapSetting === 'off'
    ? sandboxMode('SWAP_AGGREGATOR', swapSetting, { nodeEnv, sandboxInProduction })
    : { mode: swapSetting as SandboxMode }
  if (swapAggregator.problem) problems.push(swapAggregator.problem)
  const cardSetting = blankToUndefined(env.CARD_ONRAMP_SANDBOX)
  const cardOnrampSandbox = cardSetting === undefined || cardSetting === 'embedded' || cardSetting === 'off'
    ? sandboxMode('CARD_ONRAMP_SANDBOX', cardSetting, { nodeEnv, sandboxInProduction })
    : { mode: cardSetting as SandboxMode }
  if (cardOnrampSandbox.problem) problems.push(cardOnrampSandbox.problem)
  const lifiBaseUrl = blankToUndefined(env.LIFI_BASE_URL)?.replace(/\/+$/, '')
  if (lifiBaseUrl !== undefined && !isHttpUrl(lifiBaseUrl)) problems.push(`LIFI_BASE_URL: "${lifiBaseUrl}" is not an http(s) URL`)
  const swapChainsRaw = blankToUndefined(env.SANDBOX_SWAP_CHAINS)
  const sandboxSwapChains = (swapChainsRaw ?? '').split(',').map((s) => s.trim()).filter(Boolean).map(Number)
  if (sandboxSwapChains.some((c) => !Number.isSafeInteger(c) || c < 1)) problems.push(`SANDBOX_SWAP_CHAINS: "${swapChainsRaw}" is not a comma-separated list of chain ids`)
  const pricesSetting = blankToUndefined(env.PRICES_SANDBOX)
  const pricesSandbox = pricesSetting === undefined || pricesSetting === 'embedded' || pricesSetting === 'off'
    ? sandboxMode('PRICES_SANDBOX', pricesSetting, { nodeEnv, sandboxInProduction })
    : { mode: pricesSetting as SandboxMode }
  if (pricesSandbox.problem) problems.push(pricesSandbox.problem)
  const pricesBaseUrl = blankToUndefined(env.PRICES_BASE_URL)?.replace(/\/+$/, '')
  if (pricesBaseUrl !== undefined && !isHttpUrl(pricesBaseUrl)) problems.push(`PRICES_BASE_URL: "${pricesBaseUrl}" is not an http(s) URL`)
  const fcm = parseFcm(env, problems)
  const fcmBaseUrl = (blankToUndefined(env.FCM_BASE_URL) ?? FCM_DEFAULT_BASE_URL).replace(/\/+$/, '')
  if (!isHttpUrl(fcmBaseUrl)) problems.push(`FCM_BASE_URL: "${fcmBaseUrl}" is not an http(s) URL`)
  const candidate = {
    nodeEnv,
    port,
    host: blankToUndefined(env.HOST) ?? '0.0.0.0',
    databaseUrl,
    databaseAuthToken: blankToUndefined(env.DATABASE_AUTH_TOKEN),
    databaseSyncUrl,
    tenantPlacement,
    databaseSyncIntervalMs: intVar(env, 'DATABASE_SYNC_INTERVAL_MS', 1000, problems),
    databaseSyncMaxBehind: intVar(env, 'DATABASE_SYNC_MAX_BEHIND', 0, problems),
    databaseTimeoutMs: intVar(env, 'DATABASE_TIMEOUT_MS', 5000, problems),
    databaseMaxWrites: intVar(env, 'DATABASE_MAX_WRITES', 32, problems),
    databaseWriteWaitMs: intVar(env, 'DATABASE_WRITE_WAIT_MS', 1000, problems),
    bootstrapAdminUsername: username,
    bootstrapAdminPassword: password,
    jwtSecret: blankToUndefined(env.JWT_SECRET),
    masterKey,
    masterKeyVersion,
    masterKeyPrevious,
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ''),
    smtpUrl,
    mailFrom: blankToUndefined(env.MAIL_FROM) ?? `no-reply@${host}`,
    trustedProxies: trusted,
    role: blankToUndefined(env.SLIPWAY_ROLE) ?? 'all',
    dataDir: blankToUndefined(env.DATA_DIR) ?? './data',
    accessTokenTtlSeconds: intVar(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, problems),
    refreshTokenTtlSeconds: intVar(env, 'REFRESH_TOKEN_TTL_SECONDS', 7 * 24 * 3600, problems),
    logLevel: blankToUndefined(env.LOG_LEVEL)?.toLowerCase() ?? 'info',
    hibpBaseUrl: blankToUndefined(env.HIBP_BASE_URL) ?? 'https://api.pwnedpasswords.com',
    hibpTimeoutMs: intVar(env, 'HIBP_TIMEOUT_MS', 3000, problems),
    hibpOnError: blankToUndefined(env.HIBP_ON_ERROR) ?? 'reject',
    googleJwksUrl: blankToUndefined(env.GOOGLE_JWKS_URL) ?? 'https://www.googleapis.com/oauth2/v3/certs',
    appleJwksUrl: blankToUndefined(env.APPLE_JWKS_URL) ?? 'https://appleid.apple.com/auth/keys',
    webhookDevRoutes,
    rpcUrls: parseRpcUrls(env, problems),
    aavePools: parseAavePools(env),
    aaveRateSampleSeconds: intVar(env, 'AAVE_RATE_SAMPLE_SECONDS', 3600, problems),
    metricsToken: blankToUndefined(env.METRICS_TOKEN),
    shutdownGraceMs: intVar(env, 'SHUTDOWN_GRACE_MS', 10_000, problems),
    jobClaimLeaseMs: intVar(env, 'JOB_CLAIM_LEASE_MS', 60_000, problems),
    engineRamMib: intVar(env, 'ENGINE_RAM_MIB', ENGINE_RAM_DEFAULT_MIB, problems),
    rpcTimeoutMs: intVar(env, 'RPC_TIMEOUT_MS', 8000, problems),
    txMaxFeeBumpPercent: intVar(env, 'TX_MAX_FEE_BUMP_PERCENT', 100, problems),
    txMaxResends: intVar(env, 'TX_MAX_RESENDS', 3, problems),
    txDropAfterMs: intVar(env, 'TX_DROP_AFTER_MS', 60_000, problems),
    txRefreshFirstMs: intVar(env, 'TX_REFRESH_FIRST_MS', 1000, problems),
    passwordHashMemoryKib,
    agentPaymentsApprovalTtlMs: intVar(env, 'AGENT_PAYMENTS_APPROVAL_TTL_MS', 86_400_000, problems),
    agentPaymentsX402TimeoutMs: intVar(env, 'AGENT_PAYMENTS_X402_TIMEOUT_MS', 10_000, problems),
    agentPaymentsX402MaxBodyBytes: intVar(env, 'AGENT_PAYMENTS_X402_MAX_BODY_BYTES', 65_536, problems),
    agentPaymentsX402MaxAuthorizationSeconds: intVar(env, 'AGENT_PAYMENTS_X402_MAX_AUTHORIZATION_SECONDS', 300, problems),
    agentPaymentsX402SettleLookMs: intVar(env, 'AGENT_PAYMENTS_X402_SETTLE_LOOK_MS', 5000, problems),
    preparedTxTtlSeconds: intVar(env, 'PREPARED_TX_TTL_SECONDS', 600, problems),
    bankRampTimeoutMs: intVar(env, 'BANK_RAMP_TIMEOUT_MS', 10_000, problems),
    sandboxInProduction,
    devnet: devnetSettings(env),
    bankRampSimulator: bankRampSimulator.mode,
    bankRampSimulatorRpcUrl: blankToUndefined(env.BANK_RAMP_SIMULATOR_RPC_URL),
    bankRampSimulatorTokenAddress: blankToUndefined(env.BANK_RAMP_SIMULATOR_TOKEN_ADDRESS),
    bankRampSimulatorPrivateKey: blankToUndefined(env.BANK_RAMP_SIMULATOR_PRIVATE_KEY),
    sandboxFaucet: sandboxFaucet.mode,
    sandboxFaucetRpcUrl: blankToUndefined(env.SANDBOX_FAUCET_RPC_URL),
    sandboxFaucetPrivateKey: blankToUndefined(env.SANDBOX_FAUCET_PRIVATE_KEY),
    sandboxFaucetNetwork: blankToUndefined(env.SANDBOX_FAUCET_NETWORK) ?? 'sepolia',
    maxBodyBytes: intVar(env, 'MAX_BODY_BYTES', 1024 * 1024, problems),
    mpcRelayUrl: (blankToUndefined(env.MPC_RELAY_URL) ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ''),
    mpcSessionTtlSeconds: intVar(env, 'MPC_SESSION_TTL_SECONDS', 300, problems),
    mpcEngine: blankToUndefined(env.MPC_ENGINE),
    swapAggregator: swapAggregator.mode,
    cardOnrampSandbox: cardOnrampSandbox.mode,
    cardOnrampTimeoutMs: intVar(env, 'CARD_ONRAMP_TIMEOUT_MS', 10_000, problems),
    lifiBaseUrl,
    lifiApiKey: blankToUndefined(env.LIFI_API_KEY),
    swapAggregatorTimeoutMs: intVar(env, 'SWAP_AGGREGATOR_TIMEOUT_MS', 10_000, problems),
    sandboxSwapRouterAddress: blankToUndefined(env.SANDBOX_SWAP_ROUTER_ADDRESS),
    sandboxSwapChains: sandboxSwapChains.filter((c) => Number.isSafeInteger(c) && c >= 1),
    swapGaslessEnabled: boolVar(env, 'SWAP_GASLESS_ENABLED', problems),
    swapGaslessRelayerPrivateKey: blankToUndefined(env.SWAP_GASLESS_RELAYER_PRIVATE_KEY),
    swapGaslessRouterAddress: blankToUndefined(env.SWAP_GASLESS_ROUTER_ADDRESS),
    // 1 xDAI a tenant and 0.05 xDAI a user a day: about 1,000 and 50 relays at 250,000 gas and 4 gwei
    swapGaslessDailyGasPerTenantWei: blankToUndefined(env.SWAP_GASLESS_DAILY_GAS_PER_TENANT_WEI) ?? '1000000000000000000',
    swapGaslessDailyGasPerUserWei: blankToUndefined(env.SWAP_GASLESS_DAILY_GAS_PER_USER_WEI) ?? '50000000000000000',
    fcmServiceAccount: fcm.serviceAccount,
    fcmProjectId: fcm.projectId,
    fcmBaseUrl,
    fcmTimeoutMs: intVar(env, 'FCM_TIMEOUT_MS', 10_000, problems),
    pricesSandbox: pricesSandbox.mode,
    pricesBaseUrl,
    pricesApiKey: blankToUndefined(env.PRICES_API_KEY),
    pricesApiKeyHeader: blankToUndefined(env.PRICES_API_KEY_HEADER)?.toLowerCase() ?? 'x-cg-demo-api-key',
    pricesTimeoutMs: intVar(env, 'PRICES_TIMEOUT_MS', 5000, problems),
    portfolioSnapshots: blankToUndefined(env.PORTFOLIO_SNAPSHOTS)?.toLowerCase() ?? 'daily',
    bundlerUrls: parseBundlerUrls(env),
    paymasterAddresses: parsePaymasterAddresses(env),
    paymasterSignerPrivateKey: blankToUndefined(env.PAYMASTER_SIGNER_PRIVATE_KEY),
    // 0.01 of the native coin: below it sponsored routes answer 503 PAYMASTER_DEPOSIT_LOW
    paymasterMinDepositWei: blankToUndefined(env.PAYMASTER_MIN_DEPOSIT_WEI) ?? '10000000000000000',
    paymasterValiditySeconds: intVar(env, 'PAYMASTER_VALIDITY_SECONDS', 600, problems),
  }
  for (const [id, url] of Object.entries(candidate.bundlerUrls)) {
    if (!isHttpUrl(url)) problems.push(`BUNDLER_URL_${id.toUpperCase().replace(/-/g, '_')}: "${url}" is not an http(s) URL`)
  }
  if (candidate.swapGaslessEnabled && !candidate.swapGaslessRelayerPrivateKey) problems.push('SWAP_GASLESS_ENABLED=true needs SWAP_GASLESS_RELAYER_PRIVATE_KEY (the relayer that pays the gas)')
  if (candidate.swapGaslessEnabled && !candidate.swapGaslessRouterAddress && !candidate.sandboxSwapRouterAddress) {
    problems.push('SWAP_GASLESS_ENABLED=true needs SWAP_GASLESS_ROUTER_ADDRESS (or SANDBOX_SWAP_ROUTER_ADDRESS): the router with swapWithPermit')
  }
  if (!isHttpUrl(candidate.mpcRelayUrl)) problems.push(`MPC_RELAY_URL: "${candidate.mpcRelayUrl}" is not an http(s) URL`)
  if (candidate.sandboxFaucetRpcUrl && !isHttpUrl(candidate.sandboxFaucetRpcUrl)) problems.push(`SANDBOX_FAUCET_RPC_URL: "${candidate.sandboxFaucetRpcUrl}" is not an http(s) URL`)
  if (candidate.bankRampSimulatorRpcUrl && !isHttpUrl(candidate.bankRampSimulatorRpcUrl)) problems.push(`BANK_RAMP_SIMULATOR_RPC_URL: "${candidate.bankRampSimulatorRpcUrl}" is not an http(s) URL`)
  for (const [name, url] of [['HIBP_BASE_URL', candidate.hibpBaseUrl], ['GOOGLE_JWKS_URL', candidate.googleJwksUrl], ['APPLE_JWKS_URL', candidate.appleJwksUrl]] as const) {
    if (!isHttpUrl(url)) problems.push(`${name}: "${url}" is not an http(s) URL`)
  }
  for (const err of Value.Errors(ConfigSchema, candidate)) {
    // a secret never goes into the message
    const shown = err.value === undefined || isSecretPath(err.path) ? '' : ` (got "${String(err.value)}")`
    problems.push(`${envNameOf(err.path)}: ${plainMessage(err)}${shown}`)
  }
  if (problems.length) throw new ConfigError([...new Set(problems)])
  return candidate as Config
}
