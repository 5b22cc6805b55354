/**
 * Every environment variable Slipway reads, parsed and validated once at start-up.
 * Nothing else in the code base reads `process.env`.
 */
import { Type as T, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { readFileSync } from 'node:fs'
import { FCM_DEFAULT_BASE_URL } from './adapters/push/fcm'
import { ClientIpResolver } from './http/client-ip'
import { ENGINE_RAM_DEFAULT_MIB, ENGINE_RAM_MAX_MIB } from './lib/engine-memory'
import { LOG_LEVELS } from './lib/logger'
import { sandboxMode, type SandboxMode } from './sandbox/policy'

const Role = T.Union([T.Literal('all'), T.Literal('api'), T.Literal('worker')])

export const ConfigSchema = T.Object({
  nodeEnv: T.String(),
  port: T.Integer({ minimum: 0, maximum: 65535 }),
  host: T.String({ minLength: 1 }),
  databaseUrl: T.String({ minLength: 1 }),
  databaseAuthToken: T.Optional(T.String()),
  databaseSyncUrl: T.Optional(T.String()),
  /** embedded replica: pull from the primary this often (it also pulls after each of its own writes) */
  databaseSyncIntervalMs: T.Integer({ minimum: 50, maximum: 3_600_000 }),
  /** remote database or replica: a call to the server that takes longer fails (503) */
  databaseTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  bootstrapAdminUsername: T.Optional(T.String({ minLength: 3, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' })),
  bootstrapAdminPassword: T.Optional(T.String({ minLength: 8, maxLength: 256 })),
  jwtSecret: T.Optional(T.String({ minLength: 32 })),
  masterKey: T.Optional(T.String()),
  /** the version sealed values written with MASTER_KEY carry (`v<version>.`); a generated key file is version 1 */
  masterKeyVersion: T.Integer({ minimum: 1, maximum: 1_000_000 }),
  /** earlier master keys by version, still opened while `slipway reseal` moves values to the current one */
  masterKeyPrevious: T.Record(T.String(), T.String()),
  publicBaseUrl: T.String({ minLength: 1 }),
  smtpUrl: T.Optional(T.String()),
  mailFrom: T.String({ minLength: 3 }),
  trustedProxies: T.Array(T.String()),
  role: Role,
  dataDir: T.String(),
  accessTokenTtlSeconds: T.Integer({ minimum: 60, maximum: 86400 }),
  refreshTokenTtlSeconds: T.Integer({ minimum: 300, maximum: 31_536_000 }),
  /** the least severe log line written (src/lib/logger.ts) */
  logLevel: T.Union(LOG_LEVELS.map((l) => T.Literal(l))),
  hibpBaseUrl: T.String(),
  /** breached-password lookups give up after this long */
  hibpTimeoutMs: T.Integer({ minimum: 100, maximum: 60_000 }),
  /** what a password change does when the breach service cannot answer: `reject` (fail closed) or `allow` */
  hibpOnError: T.Union([T.Literal('reject'), T.Literal('allow')]),
  googleJwksUrl: T.String(),
  appleJwksUrl: T.String(),
  webhookDevRoutes: T.Record(T.String(), T.String()),
  rpcUrls: T.Record(T.String(), T.String()),
  /** `AAVE_POOL_<REGISTRY ID>`: an Aave v3 Pool address per network, over the address book's (modules/lending/pools.ts) */
  aavePools: T.Record(T.String(), T.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
  /** lending rate history: one supply-rate sample per reserve and tenant per this many seconds (docs/lending.md) */
  aaveRateSampleSeconds: T.Integer({ minimum: 1, maximum: 86_400 }),
  metricsToken: T.Optional(T.String({ minLength: 16 })),
  shutdownGraceMs: T.Integer({ minimum: 0, maximum: 600_000 }),
  /** Bun: the memory the engine paces its garbage collection for, in MiB (0: the machine's RAM); applied at start, see src/lib/engine-memory.ts */
  engineRamMib: T.Integer({ minimum: 0, maximum: ENGINE_RAM_MAX_MIB }),
  rpcTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** transactions: how far a resent transaction's max fee may rise above its first one, in percent */
  txMaxFeeBumpPercent: T.Integer({ minimum: 0, maximum: 1000 }),
  /** transactions: resends of a dropped transaction before it is marked failed */
  txMaxResends: T.Integer({ minimum: 0, maximum: 20 }),
  /** transactions: how long the node may not know a submitted transaction before it counts as dropped */
  txDropAfterMs: T.Integer({ minimum: 0, maximum: 86_400_000 }),
  /** how long an agent payment's approval waits before it and its execution expire */
  agentPaymentsApprovalTtlMs: T.Integer({ minimum: 1000, maximum: 30 * 86_400_000 }),
  /** the x402 rail: each request to a paid resource, the resource's answer kept, the longest authorization signed */
  agentPaymentsX402TimeoutMs: T.Integer({ minimum: 1000, maximum: 60_000 }),
  agentPaymentsX402MaxBodyBytes: T.Integer({ minimum: 0, maximum: 1_048_576 }),
  agentPaymentsX402MaxAuthorizationSeconds: T.Integer({ minimum: 10, maximum: 3600 }),
  /** transactions: validity of a transaction prepared for client signing */
  preparedTxTtlSeconds: T.Integer({ minimum: 10, maximum: 86_400 }),
  /** bank ramp: time limit of one call to the partner (or the simulator) */
  bankRampTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** SANDBOX_IN_PRODUCTION=true: sandbox partners may run under NODE_ENV=production (src/sandbox/policy.ts) */
  sandboxInProduction: T.Boolean(),
  /** bank ramp: `embedded` serves the sandbox simulator under /sandbox/bank-ramp for tenants with no sandbox partner address; `off` does not (default: src/sandbox/policy.ts) */
  bankRampSimulator: T.Union([T.Literal('embedded'), T.Literal('off')]),
  /** the embedded simulator's chain: RPC, stablecoin contract and the funded key it pays from; unset: conversions are recorded only */
  bankRampSimulatorRpcUrl: T.Optional(T.String()),
  bankRampSimulatorTokenAddress: T.Optional(T.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
  bankRampSimulatorPrivateKey: T.Optional(T.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
  /** the sandbox faucet (`POST /v1/sandbox/faucet`): `embedded` serves it where sandboxes run; `off` does not (default: src/sandbox/policy.ts) */
  sandboxFaucet: T.Union([T.Literal('embedded'), T.Literal('off')]),
  /** its chain and funded key (set by `npm run devnet`); unset: it answers 503 SANDBOX_FAUCET_NOT_CONFIGURED */
  sandboxFaucetRpcUrl: T.Optional(T.String()),
  sandboxFaucetPrivateKey: T.Optional(T.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
  /** registry id of the testnet it pays on */
  sandboxFaucetNetwork: T.String({ minLength: 1 }),
  /** swaps: `embedded` serves the sandbox swap aggregator under /sandbox/swap-aggregator and quotes from it unless LIFI_BASE_URL is set; `off` does not (default: src/sandbox/policy.ts) */
  swapAggregator: T.Union([T.Literal('embedded'), T.Literal('off')]),
  /** the embedded sandbox card onramp provider (Stripe's crypto onramp protocol) under /sandbox/card-onramp */
  cardOnrampSandbox: T.Union([T.Literal('embedded'), T.Literal('off')]),
  cardOnrampTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** swaps: the aggregator's API (LI.FI's `/v1`) when set; unset: the sandbox aggregator where it runs, else LIFI_DEFAULT_BASE_URL */
  lifiBaseUrl: T.Optional(T.String()),
  /** sent as `x-lifi-api-key`; a secret: never logged nor printed */
  lifiApiKey: T.Optional(T.String({ minLength: 1 })),
  /** swaps: time limit of one call to the aggregator */
  swapAggregatorTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** the sandbox aggregator's router (scripts/devnet/SandboxRouter.sol) and the chain ids it is deployed on (set by `npm run devnet`); unset: every sandbox quote answers that the devnet is needed */
  sandboxSwapRouterAddress: T.Optional(T.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
  sandboxSwapChains: T.Array(T.Integer({ minimum: 1 })),
  /** gasless swaps (docs/swaps.md "Gasless swaps"): on only with a relayer key; the relayer pays the gas and is repaid in the stablecoin */
  swapGaslessEnabled: T.Boolean(),
  /** the relayer's key (a deployment wallet, never a user's); a secret: never logged nor printed */
  swapGaslessRelayerPrivateKey: T.Optional(T.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
  /** the router with `swapWithPermit`; unset: SANDBOX_SWAP_ROUTER_ADDRESS */
  swapGaslessRouterAddress: T.Optional(T.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
  /** the largest request body the API reads; larger ones answer 413 */
  maxBodyBytes: T.Integer({ minimum: 1024, maximum: 1024 * 1024 * 1024 }),
  /** the MPC relay as the service party reaches it (the worker may run elsewhere): defaults to this process on loopback */
  mpcRelayUrl: T.String({ minLength: 1 }),
  /** an MPC relay session (DKG or signing) is refused after this long */
  mpcSessionTtlSeconds: T.Integer({ minimum: 30, maximum: 3600 }),
  /** push notifications (docs/notifications.md): the FCM service account, from FCM_SERVICE_ACCOUNT_JSON or _FILE; unset: nothing is pushed. Its private key is a secret: never logged nor printed */
  fcmServiceAccount: T.Optional(T.Object({ clientEmail: T.String({ minLength: 3 }), privateKey: T.String({ minLength: 1 }), tokenUri: T.String({ minLength: 1 }) })),
  /** the Firebase project pushes are sent through: FCM_PROJECT_ID, else the service account's `project_id` */
  fcmProjectId: T.Optional(T.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9:._-]+$' })),
  /** FCM's HTTP v1 API (tests point it at a local fake) */
  fcmBaseUrl: T.String({ minLength: 1 }),
  /** time limit of one call to FCM or to the OAuth token endpoint */
  fcmTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** portfolio prices (docs/portfolio.md): `embedded` serves the sandbox price provider (CoinGecko's simple/price protocol) under /sandbox/prices and prices come from it while PRICES_BASE_URL is unset; `off` does not (default: src/sandbox/policy.ts) */
  pricesSandbox: T.Union([T.Literal('embedded'), T.Literal('off')]),
  /** the price provider's API (CoinGecko's `/api/v3`) when set; unset: the sandbox provider where it runs, else PRICES_DEFAULT_BASE_URL */
  pricesBaseUrl: T.Optional(T.String()),
  /** the provider's key; a secret: never logged nor printed */
  pricesApiKey: T.Optional(T.String({ minLength: 1 })),
  /** the header the key is sent in (CoinGecko: `x-cg-demo-api-key`, or `x-cg-pro-api-key` for its pro API) */
  pricesApiKeyHeader: T.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' }),
  /** time limit of one call to the price provider */
  pricesTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** `daily`: the worker records every tenant user's balances once a day (00:00 UTC, and at its start when today's record is missing); `off`: it does not */
  portfolioSnapshots: T.Union([T.Literal('daily'), T.Literal('off')]),
})
export type Config = Static<typeof ConfigSchema>

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

function blankToUndefined(v: string | undefined) {
  return v === undefined || v.trim() === '' ? undefined : v.trim()
}

function isHttpUrl(v: string) {
  try {
    const u = new URL(v)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

/** Parses `KEY=origin` pairs such as `hooks.slipway.test=http://127.0.0.1:4000`. */
function parseDevRoutes(raw: string | undefined, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  if (!raw) return out
  for (const pair of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=')
    const host = pair.slice(0, eq).trim().toLowerCase()
    const origin = pair.slice(eq + 1).trim()
    if (eq <= 0 || !host || !isHttpUrl(origin)) {
      problems.push(`WEBHOOK_DEV_ROUTES: "${pair}" is not a host=origin pair (e.g. hooks.slipway.test=http://127.0.0.1:4000)`)
      continue
    }
    out[host] = new URL(origin).origin
  }
  return out
}

/** `RPC_URL_<REGISTRY ID>` variables, keyed by registry id (`RPC_URL_SOLANA_DEVNET` → `solana-devnet`). */
function parseRpcUrls(env: Env, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('RPC_URL_') || !value) continue
    const id = key.slice('RPC_URL_'.length).toLowerCase().replace(/_/g, '-')
    if (!isHttpUrl(value) && !/^wss?:\/\//.test(value)) problems.push(`${key}: "${value}" is not an http(s) or ws(s) URL`)
    else out[id] = value
  }
  return out
}

/** `AAVE_POOL_<REGISTRY ID>` variables, keyed by registry id (`AAVE_POOL_BASE_SEPOLIA` → `base-sepolia`); the schema checks each address. */
function parseAavePools(env: Env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('AAVE_POOL_') || !value) continue
    out[key.slice('AAVE_POOL_'.length).toLowerCase().replace(/_/g, '-')] = value
  }
  return out
}

/** `MASTER_KEY_PREVIOUS`: comma-separated `<version>:<key>` entries (64 hex characters or base64). */
function parsePreviousKeys(raw: string | undefined, current: number, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\d{1,7}):(.+)$/.exec(entry)
    // the key itself never goes into the message
    if (!m || Number(m[1]) < 1 || decodeKey(m[2]!) === null) problems.push(`MASTER_KEY_PREVIOUS: an entry is not <version>:<32-byte key as 64 hex characters or base64>`)
    else if (Number(m[1]) === current) problems.push(`MASTER_KEY_PREVIOUS: version ${m[1]} is the current MASTER_KEY_VERSION`)
    else if (String(Number(m[1])) in out) problems.push(`MASTER_KEY_PREVIOUS: version ${m[1]} is given twice`)
    else out[String(Number(m[1]))] = m[2]!
  }
  return out
}

/**
 * The FCM service account: FCM_SERVICE_ACCOUNT_JSON (the key file's content) or
 * FCM_SERVICE_ACCOUNT_FILE (its path), never both. Its content never goes into a message: the
 * problems name the variable and the missing field only.
 */
function parseFcm(env: Env, problems: string[]): { serviceAccount?: Config['fcmServiceAccount']; projectId?: string } {
  const inline = blankToUndefined(env.FCM_SERVICE_ACCOUNT_JSON)
  const file = blankToUndefined(env.FCM_SERVICE_ACCOUNT_FILE)
  const projectId = blankToUndefined(env.FCM_PROJECT_ID)
  if (inline && file) {
    problems.push('FCM_SERVICE_ACCOUNT_JSON and FCM_SERVICE_ACCOUNT_FILE are both set: set one')
    return {}
  }
  const name = inline ? 'FCM_SERVICE_ACCOUNT_JSON' : 'FCM_SERVICE_ACCOUNT_FILE'
  let text = inline
  if (file) {
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      problems.push(`FCM_SERVICE_ACCOUNT_FILE: cannot read "${file}" (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
      return {}
    }
  }
  if (!text) {
    if (projectId) problems.push('FCM_PROJECT_ID needs FCM_SERVICE_ACCOUNT_JSON or FCM_SERVICE_ACCOUNT_FILE')
    return {}
  }
  let key: Record<string, unknown>
  try {
    key = JSON.parse(text) as Record<string, unknown>
    if (!key || typeof key !== 'object' || Array.isArray(key)) throw new Error('not an object')
  } catch {
    problems.push(`${name}: not a JSON service account key (its content is not shown)`)
    return {}
  }
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined)
  const clientEmail = str(key.client_email)
  const privateKey = str(key.private_key)
  const tokenUri = str(key.token_uri) ?? 'https://oauth2.googleapis.com/token'
  const missing = [!clientEmail && 'client_email', !(privateKey && /PRIVATE KEY-----/.test(privateKey)) && 'private_key (PEM)'].filter(Boolean)
  if (missing.length) problems.push(`${name}: the service account key lacks ${missing.join(' and ')}`)
  if (!isHttpUrl(tokenUri)) problems.push(`${name}: token_uri is not an http(s) URL`)
  const project = projectId ?? str(key.project_id)
  if (!project) problems.push(`${name}: the key has no project_id; set FCM_PROJECT_ID`)
  if (missing.length || !isHttpUrl(tokenUri) || !project) return {}
  return { serviceAccount: { clientEmail: clientEmail!, privateKey: privateKey!, tokenUri }, projectId: project }
}

function boolVar(env: Env, name: string, problems: string[]): boolean {
  const raw = blankToUndefined(env[name])
  if (raw === undefined || raw === 'false') return false
  if (raw === 'true') return true
  problems.push(`${name}: "${raw}" is not true or false`)
  return false
}

function intVar(env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = blankToUndefined(env[name])
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw)) {
    problems.push(`${name}: "${raw}" is not a whole number`)
    return fallback
  }
  return Number(raw)
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
  const smtpUrl = blankToUndefined(env.SMTP_URL)
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) problems.push(`SMTP_URL: must start with smtp:// or smtps://`)
  const nodeEnv = blankToUndefined(env.NODE_ENV) ?? 'development'
  const webhookDevRoutes = parseDevRoutes(blankToUndefined(env.WEBHOOK_DEV_ROUTES), problems)
  if (Object.keys(webhookDevRoutes).length && nodeEnv === 'production') {
    problems.push('WEBHOOK_DEV_ROUTES is for local development and tests only and is refused when NODE_ENV=production')
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
    databaseSyncIntervalMs: intVar(env, 'DATABASE_SYNC_INTERVAL_MS', 1000, problems),
    databaseTimeoutMs: intVar(env, 'DATABASE_TIMEOUT_MS', 5000, problems),
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
    engineRamMib: intVar(env, 'ENGINE_RAM_MIB', ENGINE_RAM_DEFAULT_MIB, problems),
    rpcTimeoutMs: intVar(env, 'RPC_TIMEOUT_MS', 8000, problems),
    txMaxFeeBumpPercent: intVar(env, 'TX_MAX_FEE_BUMP_PERCENT', 100, problems),
    txMaxResends: intVar(env, 'TX_MAX_RESENDS', 3, problems),
    txDropAfterMs: intVar(env, 'TX_DROP_AFTER_MS', 60_000, problems),
    agentPaymentsApprovalTtlMs: intVar(env, 'AGENT_PAYMENTS_APPROVAL_TTL_MS', 86_400_000, problems),
    agentPaymentsX402TimeoutMs: intVar(env, 'AGENT_PAYMENTS_X402_TIMEOUT_MS', 10_000, problems),
    agentPaymentsX402MaxBodyBytes: intVar(env, 'AGENT_PAYMENTS_X402_MAX_BODY_BYTES', 65_536, problems),
    agentPaymentsX402MaxAuthorizationSeconds: intVar(env, 'AGENT_PAYMENTS_X402_MAX_AUTHORIZATION_SECONDS', 300, problems),
    preparedTxTtlSeconds: intVar(env, 'PREPARED_TX_TTL_SECONDS', 600, problems),
    bankRampTimeoutMs: intVar(env, 'BANK_RAMP_TIMEOUT_MS', 10_000, problems),
    sandboxInProduction,
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
  }
  if (candidate.swapGaslessEnabled && !candidate.swapGaslessRelayerPrivateKey) problems.push('SWAP_GASLESS_ENABLED=true needs SWAP_GASLESS_RELAYER_PRIVATE_KEY (the relayer that pays the gas)')
  if (candidate.swapGaslessEnabled && !candidate.swapGaslessRouterAddress && !candidate.sandboxSwapRouterAddress) problems.push('SWAP_GASLESS_ENABLED=true needs SWAP_GASLESS_ROUTER_ADDRESS (or SANDBOX_SWAP_ROUTER_ADDRESS): the router with swapWithPermit')
  if (!isHttpUrl(candidate.mpcRelayUrl)) problems.push(`MPC_RELAY_URL: "${candidate.mpcRelayUrl}" is not an http(s) URL`)
  if (candidate.sandboxFaucetRpcUrl && !isHttpUrl(candidate.sandboxFaucetRpcUrl)) problems.push(`SANDBOX_FAUCET_RPC_URL: "${candidate.sandboxFaucetRpcUrl}" is not an http(s) URL`)
  if (candidate.bankRampSimulatorRpcUrl && !isHttpUrl(candidate.bankRampSimulatorRpcUrl)) problems.push(`BANK_RAMP_SIMULATOR_RPC_URL: "${candidate.bankRampSimulatorRpcUrl}" is not an http(s) URL`)
  for (const [name, url] of [['HIBP_BASE_URL', candidate.hibpBaseUrl], ['GOOGLE_JWKS_URL', candidate.googleJwksUrl], ['APPLE_JWKS_URL', candidate.appleJwksUrl]] as const) {
    if (!isHttpUrl(url)) problems.push(`${name}: "${url}" is not an http(s) URL`)
  }
  for (const err of Value.Errors(ConfigSchema, candidate)) {
    // a private key never goes into the message
    const shown = err.value === undefined || SECRET_PATHS.has(err.path) ? '' : ` (got "${String(err.value)}")`
    problems.push(`${envNameOf(err.path)}: ${err.message}${shown}`)
  }
  if (problems.length) throw new ConfigError([...new Set(problems)])
  return candidate as Config
}

/** values never put in a message */
const SECRET_PATHS = new Set(['/pricesApiKey', '/bankRampSimulatorPrivateKey', '/sandboxFaucetPrivateKey', '/lifiApiKey', '/swapGaslessRelayerPrivateKey', '/fcmServiceAccount', '/fcmServiceAccount/privateKey', '/fcmServiceAccount/clientEmail', '/fcmServiceAccount/tokenUri'])

const ENV_NAMES: Record<string, string> = {
  '/port': 'PORT', '/databaseSyncIntervalMs': 'DATABASE_SYNC_INTERVAL_MS (50-3600000)', '/databaseTimeoutMs': 'DATABASE_TIMEOUT_MS (100-120000)', '/role': 'SLIPWAY_ROLE', '/jwtSecret': 'JWT_SECRET (at least 32 characters)',
  '/bootstrapAdminUsername': 'BOOTSTRAP_ADMIN_USERNAME (3-100 of letters, digits, _ and -)',
  '/bootstrapAdminPassword': 'BOOTSTRAP_ADMIN_PASSWORD (at least 8 characters)',
  '/logLevel': `LOG_LEVEL (${LOG_LEVELS.join(', ')})`, '/accessTokenTtlSeconds': 'ACCESS_TOKEN_TTL_SECONDS',
  '/refreshTokenTtlSeconds': 'REFRESH_TOKEN_TTL_SECONDS', '/rpcTimeoutMs': 'RPC_TIMEOUT_MS', '/mailFrom': 'MAIL_FROM',
  '/metricsToken': 'METRICS_TOKEN (at least 16 characters)', '/shutdownGraceMs': 'SHUTDOWN_GRACE_MS', '/engineRamMib': `ENGINE_RAM_MIB (0-${ENGINE_RAM_MAX_MIB})`, '/masterKeyVersion': 'MASTER_KEY_VERSION (1-1000000)',
  '/hibpTimeoutMs': 'HIBP_TIMEOUT_MS (100 to 60000)', '/hibpOnError': 'HIBP_ON_ERROR (reject or allow)',
  '/txMaxFeeBumpPercent': 'TX_MAX_FEE_BUMP_PERCENT (0-1000)', '/txMaxResends': 'TX_MAX_RESENDS (0-20)', '/txDropAfterMs': 'TX_DROP_AFTER_MS', '/agentPaymentsApprovalTtlMs': 'AGENT_PAYMENTS_APPROVAL_TTL_MS (1000-2592000000)',
  '/agentPaymentsX402TimeoutMs': 'AGENT_PAYMENTS_X402_TIMEOUT_MS (1000-60000)', '/agentPaymentsX402MaxBodyBytes': 'AGENT_PAYMENTS_X402_MAX_BODY_BYTES (0-1048576)',
  '/agentPaymentsX402MaxAuthorizationSeconds': 'AGENT_PAYMENTS_X402_MAX_AUTHORIZATION_SECONDS (10-3600)', '/preparedTxTtlSeconds': 'PREPARED_TX_TTL_SECONDS (10-86400)',
  '/bankRampTimeoutMs': 'BANK_RAMP_TIMEOUT_MS (100-120000)', '/bankRampSimulator': 'BANK_RAMP_SIMULATOR (embedded or off)',
  '/bankRampSimulatorTokenAddress': 'BANK_RAMP_SIMULATOR_TOKEN_ADDRESS (0x and 40 hex)', '/bankRampSimulatorPrivateKey': 'BANK_RAMP_SIMULATOR_PRIVATE_KEY (0x and 64 hex; never printed)',
  '/sandboxFaucet': 'SANDBOX_FAUCET (embedded or off)', '/sandboxFaucetPrivateKey': 'SANDBOX_FAUCET_PRIVATE_KEY (0x and 64 hex; never printed)',
  '/maxBodyBytes': 'MAX_BODY_BYTES (1024 to 1073741824)',
  '/mpcRelayUrl': 'MPC_RELAY_URL', '/mpcSessionTtlSeconds': 'MPC_SESSION_TTL_SECONDS (30 to 3600)',
  '/cardOnrampSandbox': 'CARD_ONRAMP_SANDBOX (embedded or off)', '/cardOnrampTimeoutMs': 'CARD_ONRAMP_TIMEOUT_MS (100-120000)',
  '/swapAggregator': 'SWAP_AGGREGATOR (embedded or off)', '/lifiApiKey': 'LIFI_API_KEY (never printed)', '/swapAggregatorTimeoutMs': 'SWAP_AGGREGATOR_TIMEOUT_MS (100-120000)',
  '/sandboxSwapRouterAddress': 'SANDBOX_SWAP_ROUTER_ADDRESS (0x and 40 hex)',
  '/swapGaslessRelayerPrivateKey': 'SWAP_GASLESS_RELAYER_PRIVATE_KEY (0x and 64 hex; never printed)', '/swapGaslessRouterAddress': 'SWAP_GASLESS_ROUTER_ADDRESS (0x and 40 hex)',
  '/pricesSandbox': 'PRICES_SANDBOX (embedded or off)', '/pricesApiKey': 'PRICES_API_KEY (never printed)', '/pricesApiKeyHeader': 'PRICES_API_KEY_HEADER (a header name: letters, digits and -)',
  '/pricesTimeoutMs': 'PRICES_TIMEOUT_MS (100-120000)', '/portfolioSnapshots': 'PORTFOLIO_SNAPSHOTS (daily or off)',
  '/fcmProjectId': 'FCM_PROJECT_ID (letters, digits, and : . _ -)', '/fcmTimeoutMs': 'FCM_TIMEOUT_MS (100-120000)',
  '/fcmServiceAccount/clientEmail': 'FCM_SERVICE_ACCOUNT_JSON or _FILE: client_email', '/fcmServiceAccount/privateKey': 'FCM_SERVICE_ACCOUNT_JSON or _FILE: private_key (never printed)',
}
function envNameOf(path: string) {
  if (path.startsWith('/aavePools/')) return `AAVE_POOL_${path.slice('/aavePools/'.length).toUpperCase().replace(/-/g, '_')} (0x and 40 hex)`
  return ENV_NAMES[path] ?? path.replace(/^\//, '')
}

/** A 32-byte key given as 64 hex characters or as base64; null when it is neither. */
export function decodeKey(text: string): Uint8Array | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Uint8Array.from(Buffer.from(text, 'hex'))
  if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    if (bytes.length === 32) return Uint8Array.from(bytes)
  }
  return null
}
