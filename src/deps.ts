/**
 * Everything the app needs from the outside world, built once from the config.
 * Time, randomness-backed keys and external systems come from here so tests control them.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { decodeKey, type Config } from './config'
import { openDatabase, type Database, type Db } from './db/client'
import { openPlacement } from './db/placement'
import { appMeta } from './db/schema'
import { notCurrentVersion, type SealedColumn } from './db/sealed-columns'
import { systemClock, type Clock } from './lib/clock'
import { Sealer } from './lib/crypto'
import { createLogger, type Logger } from './lib/logger'
import { Metrics } from './lib/metrics'
import { setPasswordHashMemory } from './lib/passwords'
import { ClientIpResolver } from './http/client-ip'
import { RateLimiter } from './http/rate-limit'
import { ChainGateway } from './adapters/chain'
import type { BundlerGateway } from './adapters/bundler'
import { lazy } from './lib/lazy'
import type { MailTransport } from './adapters/mail/port'
import { SmtpTransport } from './adapters/mail/smtp'
import type { BreachedPasswords } from './adapters/hibp/port'
import { HibpRangeApi } from './adapters/hibp/range-api'
import type { IdTokenVerifier } from './adapters/identity/port'
import { APPLE_ISSUERS, GOOGLE_ISSUERS, JwksIdTokenVerifier } from './adapters/identity/jwks-verifier'
import type { BankRampPort } from './adapters/bank-ramp/port'
import { HttpBankRamp } from './adapters/bank-ramp/http'
import { evmTransferVerifier } from './adapters/chain/transfer-check'
import { evmFaucet, type Faucet } from './adapters/chain/faucet'
import { createEmbeddedSimulator, type EmbeddedSimulator } from './sandbox/bank-ramp/embedded'
import { StripeOnramp } from './adapters/card-onramp/stripe'
import { createCardSandbox, type CardSandbox } from './sandbox/card-onramp/provider'
import { libsqlCardPersistence } from './sandbox/card-onramp/repo'
import { evmStablecoinSender, MainnetChainRefused } from './adapters/chain/funded-sender'
import type { AggregatorEndpoint, SwapAggregator } from './adapters/swap-aggregator/port'
import { LIFI_DEFAULT_BASE_URL, LifiAggregator } from './adapters/swap-aggregator/lifi'
import { createSandboxSwapAggregator, type SandboxSwapAggregator } from './sandbox/swap-aggregator/embedded'
import type { PushSender } from './adapters/push/port'
import { FcmPush } from './adapters/push/fcm'
import type { PriceEndpoint, PriceProvider } from './adapters/prices/port'
import { CoinGeckoPrices, PRICES_DEFAULT_BASE_URL } from './adapters/prices/coingecko'
import { createSandboxPrices, type SandboxPrices } from './sandbox/prices/provider'

export interface Deps {
  config: Config
  database: Database
  clock: Clock
  sealer: Sealer
  /** HS256 key for access tokens */
  jwtKey: Uint8Array
  logger: Logger
  ipResolver: ClientIpResolver
  rateLimiter: RateLimiter
  metrics: Metrics
  /** DNS lookup for webhook deliveries (every A and AAAA address); the system resolver when unset. Tests set it to return chosen addresses. */
  resolveHost?: (host: string) => Promise<string[]>
  /** blockchain networks (viem, @solana/web3.js) behind one adapter */
  chain: ChainGateway
  /** ERC-4337 bundlers (BUNDLER_URL_<NETWORK>) and EntryPoint v0.8 reads, loaded with viem on first use (gas sponsorship) */
  bundler: () => Promise<BundlerGateway>
  /** SMTP (SMTP_URL); without it, none: the mail module keeps messages in its own outbox table */
  mailer?: MailTransport
  breachedPasswords: BreachedPasswords
  identityProviders: { google: IdTokenVerifier; apple: IdTokenVerifier }
  /** the bank ramp partner's REST client (one per process; connected per tenant and environment) */
  bankRamp: BankRampPort
  /** the sandbox simulator this process serves (BANK_RAMP_SIMULATOR=embedded), for tenants with no sandbox partner address */
  bankRampSimulator?: EmbeddedSimulator
  /** the sandbox faucet's funded key, where sandboxes run and `npm run devnet` configured it */
  faucet?: Faucet
  /** LI.FI's quote API client (one per process; pointed at an endpoint per call) */
  swapAggregator: SwapAggregator
  /** where quotes are asked: the sandbox aggregator in process (SWAP_AGGREGATOR=embedded and LIFI_BASE_URL unset), else LI.FI at LIFI_BASE_URL */
  swapAggregatorEndpoint(): AggregatorEndpoint
  /** the sandbox swap aggregator this process serves under /sandbox/swap-aggregator (SWAP_AGGREGATOR=embedded) */
  sandboxSwapAggregator?: SandboxSwapAggregator
  /** the card onramp provider's client (Stripe's crypto onramp protocol) */
  cardOnramp: StripeOnramp
  /** the embedded sandbox card onramp provider, where sandboxes run */
  cardOnrampSandbox?: CardSandbox
  /** FCM HTTP v1 (docs/notifications.md) when a service account is configured; unset: notifications fill the inbox and nothing is pushed */
  push?: PushSender
  /** the price provider's client (CoinGecko's simple/price protocol; one per process, pointed at an endpoint per call) */
  prices: PriceProvider
  /** where prices are asked: the sandbox provider in process (PRICES_SANDBOX=embedded and PRICES_BASE_URL unset), else PRICES_BASE_URL or CoinGecko's public API */
  pricesEndpoint(): PriceEndpoint
  /** the sandbox price provider this process serves under /sandbox/prices (PRICES_SANDBOX=embedded) */
  sandboxPrices?: SandboxPrices
}

export interface DepsOverrides {
  clock?: Clock
  logger?: Logger
  /**
   * How migrations are applied: the Bun entry passes the set embedded at build time
   * (src/db/migrate.ts), the Deno entry drizzle's folder migrator.
   */
  migrate: (db: Db) => Promise<void>
}

export async function buildDeps(config: Config, overrides: DepsOverrides): Promise<Deps> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel })
  const clock = overrides.clock ?? systemClock
  setPasswordHashMemory(config.passwordHashMemoryKib)
  const control = await openDatabase({
    url: config.databaseUrl,
    authToken: config.databaseAuthToken,
    syncUrl: config.databaseSyncUrl,
    syncIntervalMs: config.databaseSyncIntervalMs,
    syncMaxBehind: config.databaseSyncMaxBehind,
    timeoutMs: config.databaseTimeoutMs,
    maxWrites: config.databaseMaxWrites,
    writeWaitMs: config.databaseWriteWaitMs,
    migrate: overrides.migrate,
  })
  // Tenants on databases of their own (docs/scaling.md): each opened, and migrated, like the control database.
  const database = config.tenantPlacement
    ? await openPlacement(control, config.tenantPlacement, (e) => openDatabase({ url: e.url, authToken: e.authToken, timeoutMs: config.databaseTimeoutMs, migrate: overrides.migrate }))
    : control
  const previous = Object.fromEntries(Object.entries(config.masterKeyPrevious).map(([v, k]) => [Number(v), decodeKey(k)!]))
  const sealer = new Sealer(loadMasterKey(config, logger), config.masterKeyVersion, previous)
  const jwtKey = await loadJwtKey(config, database, sealer)
  const metrics = new Metrics()
  const replica = database.replica
  if (replica) metrics.trackReplica(() => replica.status())
  const simChain = config.bankRampSimulatorRpcUrl && config.bankRampSimulatorTokenAddress && config.bankRampSimulatorPrivateKey
    ? evmStablecoinSender({ rpcUrl: config.bankRampSimulatorRpcUrl, tokenAddress: config.bankRampSimulatorTokenAddress, privateKey: config.bankRampSimulatorPrivateKey })
    : undefined
  if (simChain && config.bankRampSimulator === 'embedded') await checkSimulatorChain(simChain, logger)
  const sandboxSwapAggregator = config.swapAggregator === 'embedded'
    ? createSandboxSwapAggregator({ publicBaseUrl: config.publicBaseUrl, routerAddress: config.sandboxSwapRouterAddress, chainIds: config.sandboxSwapChains })
    : undefined
  // An explicit LIFI_BASE_URL wins over the sandbox: pointing it at LI.FI is all a deployment changes.
  const swapEndpoint: AggregatorEndpoint = sandboxSwapAggregator && config.lifiBaseUrl === undefined
    ? {
      baseUrl: sandboxSwapAggregator.baseUrl,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => sandboxSwapAggregator.fetch(new Request(input, init))) as typeof fetch,
      testnetChainIds: sandboxSwapAggregator.testnetChainIds,
    }
    : { baseUrl: config.lifiBaseUrl ?? LIFI_DEFAULT_BASE_URL, ...(config.lifiApiKey ? { apiKey: config.lifiApiKey } : {}) }
  const sandboxPrices = config.pricesSandbox === 'embedded' ? createSandboxPrices({ publicBaseUrl: config.publicBaseUrl, now: () => clock.now() }) : undefined
  // As for swaps: an explicit PRICES_BASE_URL wins over the sandbox.
  const pricesEndpoint: PriceEndpoint = sandboxPrices && config.pricesBaseUrl === undefined
    ? { baseUrl: sandboxPrices.baseUrl, fetch: ((input: RequestInfo | URL, init?: RequestInit) => sandboxPrices.fetch(new Request(input, init))) as typeof fetch }
    : { baseUrl: config.pricesBaseUrl ?? PRICES_DEFAULT_BASE_URL, ...(config.pricesApiKey ? { apiKey: config.pricesApiKey, apiKeyHeader: config.pricesApiKeyHeader } : {}) }
  return {
    config,
    database,
    clock,
    sealer,
    jwtKey,
    logger,
    ipResolver: new ClientIpResolver(config.trustedProxies),
    rateLimiter: new RateLimiter(clock),
    metrics,
    chain: new ChainGateway(logger, config.rpcTimeoutMs, (system) => metrics.fetcher(system)),
    bundler: lazy(async () => new (await import('./adapters/bundler')).BundlerGateway(config.rpcTimeoutMs, (system) => metrics.fetcher(system))),
    mailer: config.smtpUrl ? new SmtpTransport(config.smtpUrl, metrics) : undefined,
    breachedPasswords: new HibpRangeApi(config.hibpBaseUrl, config.hibpTimeoutMs, metrics.fetcher('hibp')),
    identityProviders: {
      google: new JwksIdTokenVerifier({ provider: 'google', jwksUrl: config.googleJwksUrl, issuers: GOOGLE_ISSUERS, clock, fetch: metrics.fetcher('jwks:google') }),
      // Apple's native flow puts the SHA-256 of the app's nonce in the token.
      apple: new JwksIdTokenVerifier({ provider: 'apple', jwksUrl: config.appleJwksUrl, issuers: APPLE_ISSUERS, clock, hashedNonce: true, fetch: metrics.fetcher('jwks:apple') }),
    },
    bankRamp: new HttpBankRamp(config.bankRampTimeoutMs, metrics.fetcher('bank-ramp')),
    // The simulator's keys are derived from the JWT key (HMAC with their own labels): stable
    // across restarts and processes sharing the database, and unknown outside the server.
    // Its state is kept in its own tables of this database (sandbox only), loaded before its
    // first request: a restart changes nothing for a sandbox user.
    bankRampSimulator: config.bankRampSimulator === 'embedded'
      ? createEmbeddedSimulator({
        secret: jwtKey, publicBaseUrl: config.publicBaseUrl, chain: simChain, database,
        verifier: config.bankRampSimulatorRpcUrl && config.bankRampSimulatorTokenAddress
          ? evmTransferVerifier({ rpcUrl: config.bankRampSimulatorRpcUrl, tokenAddress: config.bankRampSimulatorTokenAddress })
          : undefined,
      })
      : undefined,
    faucet: config.sandboxFaucet === 'embedded' && config.sandboxFaucetRpcUrl && config.sandboxFaucetPrivateKey
      ? evmFaucet({ rpcUrl: config.sandboxFaucetRpcUrl, privateKey: config.sandboxFaucetPrivateKey })
      : undefined,
    swapAggregator: new LifiAggregator(config.swapAggregatorTimeoutMs, metrics.fetcher('swap-aggregator')),
    swapAggregatorEndpoint: () => swapEndpoint,
    sandboxSwapAggregator,
    cardOnramp: new StripeOnramp(config.cardOnrampTimeoutMs, metrics.fetcher('card-onramp')),
    cardOnrampSandbox: config.cardOnrampSandbox === 'embedded'
      ? createCardSandbox({ secret: jwtKey, publicBaseUrl: config.publicBaseUrl, chain: simChain, persistence: libsqlCardPersistence(database, () => clock.now()) })
      : undefined,
    push: config.fcmServiceAccount && config.fcmProjectId
      ? new FcmPush({ serviceAccount: config.fcmServiceAccount, projectId: config.fcmProjectId, baseUrl: config.fcmBaseUrl, timeoutMs: config.fcmTimeoutMs, fetch: metrics.fetcher('fcm') })
      : undefined,
    prices: new CoinGeckoPrices(config.pricesTimeoutMs, metrics.fetcher('prices')),
    pricesEndpoint: () => pricesEndpoint,
    sandboxPrices,
  }
}

/**
 * The simulator's chain is checked at start-up so a mainnet stops the process with the
 * reason (MainnetChainRefused); a chain that does not answer yet is only a warning, and is
 * checked again before the first payment.
 */
async function checkSimulatorChain(chain: { checkChain?(): Promise<number> }, logger: Logger) {
  try {
    await chain.checkChain?.()
  } catch (err) {
    if (err instanceof MainnetChainRefused) throw err
    logger.warn('bank ramp simulator: its chain (BANK_RAMP_SIMULATOR_RPC_URL) did not answer; it is checked again before the first payment', { error: (err as Error).message })
  }
}

/**
 * MASTER_KEY, or a key generated once and kept beside the database file (mode 0600).
 * An in-memory database gets a key that lives as long as the process, like its data.
 */
function loadMasterKey(config: Config, logger: Logger): Uint8Array {
  if (config.masterKey) return decodeKey(config.masterKey)!
  if (!config.databaseUrl.startsWith('file:')) {
    if (config.databaseUrl === ':memory:') return randomBytes(32)
    throw new Error('MASTER_KEY is required when DATABASE_URL is a remote libSQL server')
  }
  const dbPath = config.databaseUrl.slice('file:'.length).split('?')[0]!
  const keyPath = join(dirname(dbPath), 'master.key')
  if (existsSync(keyPath)) {
    const key = decodeKey(readFileSync(keyPath, 'utf8').trim())
    if (!key) throw new Error(`${keyPath} does not hold a 32-byte key`)
    return key
  }
  mkdirSync(dirname(keyPath), { recursive: true })
  const key = randomBytes(32)
  writeFileSync(keyPath, key.toString('base64') + '\n', { mode: 0o600 })
  logger.warn('MASTER_KEY is not set: generated one and stored it beside the database. Back it up; without it the stored secrets cannot be read.', { keyPath })
  return key
}

/** JWT_SECRET, or a random key generated once and kept (sealed) in the database. */
async function loadJwtKey(config: Config, database: Database, sealer: Sealer): Promise<Uint8Array> {
  if (config.jwtSecret) return new TextEncoder().encode(config.jwtSecret)
  const aad = 'app_meta:jwt_secret'
  return database.write(async (tx) => {
    const row = await tx.select().from(appMeta).where(eq(appMeta.key, 'jwt_secret')).get()
    if (row) {
      try {
        return Uint8Array.from(sealer.openBytes(row.value, aad))
      } catch {
        throw new Error(`The stored JWT key (sealed with master key version ${Sealer.versionOf(row.value)}) does not open with the configured keys. `
          + 'Is MASTER_KEY the key this database was sealed with? After a rotation, the old key belongs in MASTER_KEY_PREVIOUS under its version, and the new one gets a new MASTER_KEY_VERSION.')
      }
    }
    const key = randomBytes(32)
    await tx.insert(appMeta).values({ key: 'jwt_secret', value: sealer.seal(key, aad) })
    return Uint8Array.from(key)
  })
}

/** The generated JWT key as `slipway reseal` sees it (src/ops/reseal.ts), listed beside the code that seals it. */
export const coreSealedColumns: SealedColumn[] = [
  {
    name: 'app_meta.jwt_secret',
    async scan(db, current, after) {
      if (after) return { items: [] }
      const row = await db.select().from(appMeta).where(and(eq(appMeta.key, 'jwt_secret'), notCurrentVersion(appMeta.value, current))).get()
      return { items: row ? [{ key: 'jwt_secret', sealed: row.value, aad: 'app_meta:jwt_secret' }] : [], last: 'jwt_secret' }
    },
    async write(database, item, next) {
      const r = await database.write((tx) => tx.update(appMeta).set({ value: next }).where(and(eq(appMeta.key, item.key), eq(appMeta.value, item.sealed))).returning({ k: appMeta.key }))
      return r.length === 1
    },
    async all(db) {
      return (await db.select({ v: appMeta.value }).from(appMeta).where(eq(appMeta.key, 'jwt_secret'))).map((r) => r.v)
    },
  },
]
