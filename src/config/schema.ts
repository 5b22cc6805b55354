/**
 * The shape of a valid configuration: every setting with its type and bounds, checked once
 * by loadConfig (src/config.ts) after the environment is read.
 */
import { Type as T, type Static } from '@sinclair/typebox'
import { ENGINE_RAM_MAX_MIB } from '../lib/engine-memory'
import { LOG_LEVELS } from '../lib/logger'

const Role = T.Union([T.Literal('all'), T.Literal('api'), T.Literal('worker')])

export const ConfigSchema = T.Object({
  nodeEnv: T.String(),
  port: T.Integer({ minimum: 0, maximum: 65535 }),
  host: T.String({ minLength: 1 }),
  databaseUrl: T.String({ minLength: 1 }),
  databaseAuthToken: T.Optional(T.String()),
  databaseSyncUrl: T.Optional(T.String()),
  /** TENANT_PLACEMENT: tenant id → its own database (docs/scaling.md); unset, every tenant on databaseUrl */
  tenantPlacement: T.Optional(T.Record(T.String(), T.Object({ url: T.String(), authToken: T.Optional(T.String()) }))),
  /** embedded replica: pull from the primary this often (and before a read that follows one of its own writes) */
  databaseSyncIntervalMs: T.Integer({ minimum: 50, maximum: 3_600_000 }),
  /** embedded replica: its writes not yet pulled before its next write waits for a pull (0: pulls on the event loop, unbounded) */
  databaseSyncMaxBehind: T.Integer({ minimum: 0, maximum: 100_000 }),
  /** remote database or replica: a call to the server that takes longer fails (503) */
  databaseTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** writes in flight per process; past it a write waits databaseWriteWaitMs for a place, then 503 DATABASE_BUSY with retry-after */
  databaseMaxWrites: T.Integer({ minimum: 1, maximum: 10_000 }),
  databaseWriteWaitMs: T.Integer({ minimum: 0, maximum: 120_000 }),
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
  /** `SLIPWAY_DEVNET` (the file `npm run devnet` wrote, e.g. .env.devnet) and `SLIPWAY_DEVNET_SETTINGS` (the names it set): logged at start */
  devnet: T.Optional(T.Object({ file: T.String(), settings: T.Array(T.String()) })),
  rpcUrls: T.Record(T.String(), T.String()),
  /** `BUNDLER_URL_<REGISTRY ID>`: an ERC-4337 bundler per network (gas sponsorship, docs/gas-sponsorship.md); none: sponsorship is off there */
  bundlerUrls: T.Record(T.String(), T.String()),
  /** `PAYMASTER_ADDRESS_<REGISTRY ID>`: the verifying paymaster (SlipwayPaymaster) per network */
  paymasterAddresses: T.Record(T.String(), T.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
  /** the paymaster's signer; never printed */
  paymasterSignerPrivateKey: T.Optional(T.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
  /** below this deposit in the EntryPoint (wei), sponsorship answers 503 PAYMASTER_DEPOSIT_LOW */
  paymasterMinDepositWei: T.String({ pattern: '^[0-9]{1,30}$' }),
  /** how long a paymaster signature is valid, seconds */
  paymasterValiditySeconds: T.Integer({ minimum: 60, maximum: 86_400 }),
  /** `AAVE_POOL_<REGISTRY ID>`: an Aave v3 Pool address per network, over the address book's (modules/lending/pools.ts) */
  aavePools: T.Record(T.String(), T.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
  /** lending rate history: one supply-rate sample per reserve and tenant per this many seconds (docs/lending.md) */
  aaveRateSampleSeconds: T.Integer({ minimum: 1, maximum: 86_400 }),
  metricsToken: T.Optional(T.String({ minLength: 16 })),
  shutdownGraceMs: T.Integer({ minimum: 0, maximum: 600_000 }),
  jobClaimLeaseMs: T.Integer({ minimum: 1000, maximum: 3_600_000 }),
  /** Bun: the memory the engine paces its garbage collection for, in MiB (0: the machine's RAM); applied at start, see src/lib/engine-memory.ts */
  engineRamMib: T.Integer({ minimum: 0, maximum: ENGINE_RAM_MAX_MIB }),
  rpcTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /** transactions: how far a resent transaction's max fee may rise above its first one, in percent */
  txMaxFeeBumpPercent: T.Integer({ minimum: 0, maximum: 1000 }),
  /** transactions: resends of a dropped transaction before it is marked failed */
  txMaxResends: T.Integer({ minimum: 0, maximum: 20 }),
  /** transactions: how long the node may not know a submitted transaction before it counts as dropped */
  txDropAfterMs: T.Integer({ minimum: 0, maximum: 86_400_000 }),
  /** transactions: the status job's first look after a send, doubling after, at most a minute apart */
  txRefreshFirstMs: T.Integer({ minimum: 50, maximum: 60_000 }),
  /** argon2id's memory cost in KiB for new password hashes (OWASP's 19456 by default; lower only outside production, for tests) */
  passwordHashMemoryKib: T.Integer({ minimum: 64, maximum: 1_048_576 }),
  /** how long an agent payment's approval waits before it and its execution expire */
  agentPaymentsApprovalTtlMs: T.Integer({ minimum: 1000, maximum: 30 * 86_400_000 }),
  /** the x402 rail: each request to a paid resource, the resource's answer kept, the longest authorization signed */
  agentPaymentsX402TimeoutMs: T.Integer({ minimum: 1000, maximum: 60_000 }),
  agentPaymentsX402MaxBodyBytes: T.Integer({ minimum: 0, maximum: 1_048_576 }),
  agentPaymentsX402MaxAuthorizationSeconds: T.Integer({ minimum: 10, maximum: 3600 }),
  /** the x402 rail: how long after an unused authorization's expiry the chain is first read, and again while it is not past it */
  agentPaymentsX402SettleLookMs: T.Integer({ minimum: 100, maximum: 60_000 }),
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
  /**
   * the relayer's spend on one tenant's gasless swaps per UTC day, in wei of the native coin (each
   * relay counted at its gas limit × max fee when it is claimed): what one tenant can take of the
   * relayer's balance, whatever its users do (docs/swaps.md "The relayer's bounds")
   */
  swapGaslessDailyGasPerTenantWei: T.String({ pattern: '^[0-9]{1,30}$' }),
  /** the same bound per user (within their tenant's) */
  swapGaslessDailyGasPerUserWei: T.String({ pattern: '^[0-9]{1,30}$' }),
  /** the largest request body the API reads; larger ones answer 413 */
  maxBodyBytes: T.Integer({ minimum: 1024, maximum: 1024 * 1024 * 1024 }),
  /** the MPC relay as the service party reaches it (the worker may run elsewhere): defaults to this process on loopback */
  mpcRelayUrl: T.String({ minLength: 1 }),
  /** an MPC relay session (DKG or signing) is refused after this long */
  mpcSessionTtlSeconds: T.Integer({ minimum: 30, maximum: 3600 }),
  /** MPC_ENGINE: the module of the threshold ECDSA engine (src/adapters/mpc/port.ts); unset: none, MPC wallets are off */
  mpcEngine: T.Optional(T.String({ minLength: 1 })),
  /** push notifications (docs/notifications.md): the FCM service account, from FCM_SERVICE_ACCOUNT_JSON or _FILE; unset: nothing is pushed. Its private key is a secret: never logged nor printed */
  fcmServiceAccount: T.Optional(T.Object({ clientEmail: T.String({ minLength: 3 }), privateKey: T.String({ minLength: 1 }), tokenUri: T.String({ minLength: 1 }) })),
  /** the Firebase project pushes are sent through: FCM_PROJECT_ID, else the service account's `project_id` */
  fcmProjectId: T.Optional(T.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9:._-]+$' })),
  /** FCM's HTTP v1 API (tests point it at a local fake) */
  fcmBaseUrl: T.String({ minLength: 1 }),
  /** time limit of one call to FCM or to the OAuth token endpoint */
  fcmTimeoutMs: T.Integer({ minimum: 100, maximum: 120_000 }),
  /**
   * portfolio prices (docs/portfolio.md): `embedded` serves the sandbox price provider (CoinGecko's
   * simple/price protocol) under /sandbox/prices and prices come from it while PRICES_BASE_URL is
   * unset; `off` does not (default: src/sandbox/policy.ts)
   */
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
