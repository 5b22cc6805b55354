/** The gas sponsorship routes' schemas: the schema is the type. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { GAS_OPERATION_KINDS } from './schema'
import { USD_ANSWER_PATTERN, USD_PATTERN, USD_TOTAL_PATTERN } from './usd'

const Wei = (description: string) => t.Union([t.String({ pattern: '^[0-9]{1,30}$', description }), t.Null()])
const Usd = (description: string) => t.Union([t.String({ pattern: USD_PATTERN, maxLength: 31, description }), t.Null()])
/** as answered: stored without trailing zeros whatever the request wrote (`1.50` answers `1.5`) */
const UsdAnswer = (description: string) => t.Union([t.String({ pattern: USD_ANSWER_PATTERN, maxLength: 31, description }), t.Null()])
const USD_NOTE = 'USD as an exact decimal string (`2.5`), each operation at the price adapter\'s rate for the native coin when it is sponsored'
const Kind = t.Union(GAS_OPERATION_KINDS.map((k) => t.Literal(k)))

export const AllowedCallBody = t.Object({
  contract: t.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'a contract a dApp call may reach' }),
  selectors: t.Array(t.String({ pattern: '^0x[0-9a-fA-F]{8}$' }), { maxItems: 50, description: '4-byte selectors; empty: any function of the contract' }),
}, { additionalProperties: false })

export const GasPolicyBody = t.Object({
  enabled: t.Boolean({ description: 'whether the tenant sponsors gas on this network' }),
  userDailyLimitWei: t.Optional(Wei('the most gas (wei of the native coin) sponsored for one user per UTC day; null: no limit')),
  tenantMonthlyBudgetWei: t.Optional(Wei('the most gas (wei) sponsored for the whole tenant per UTC month; null: no limit')),
  maxPerOperationWei: t.Optional(Wei('the most one operation may cost (every gas limit × max fee, wei); null: no limit')),
  userDailyLimitUsd: t.Optional(Usd(`the user's daily limit in USD; null: none (${USD_NOTE})`)),
  tenantMonthlyBudgetUsd: t.Optional(Usd(`the tenant's monthly budget in USD; null: none (${USD_NOTE})`)),
  maxPerOperationUsd: t.Optional(Usd(`the most one operation may cost in USD; null: no limit (${USD_NOTE})`)),
  operations: t.Optional(t.Array(Kind, { maxItems: GAS_OPERATION_KINDS.length, description: 'the kinds sponsored: send, swap, lending, payout, agent, dapp' })),
  allowlist: t.Optional(t.Array(AllowedCallBody, { maxItems: 200, description: 'dApp calls: the contracts (and selectors) sponsored' })),
}, {
  additionalProperties: false,
  examples: [{
    enabled: true, userDailyLimitWei: '3000000000000000', tenantMonthlyBudgetWei: '1000000000000000000', maxPerOperationWei: '1000000000000000',
    userDailyLimitUsd: '5', tenantMonthlyBudgetUsd: '1000', maxPerOperationUsd: '1.5', operations: ['send', 'swap'], allowlist: [],
  }],
})
export type GasPolicyBody = typeof GasPolicyBody.static

export const GasPolicy = t.Object({
  network: t.String({ description: 'registry id of the network (`ethereum`, `sepolia`)' }),
  enabled: t.Boolean(),
  userDailyLimitWei: Wei('the most gas (wei of the native coin, an integer string) sponsored for one user per UTC day; null: no limit'),
  tenantMonthlyBudgetWei: Wei('the most gas (wei, an integer string) sponsored for the whole tenant per UTC month; null: no limit'),
  maxPerOperationWei: Wei('the most one operation may cost (wei, an integer string); null: no limit'),
  userDailyLimitUsd: UsdAnswer(`the user's daily limit in USD; null: none (${USD_NOTE})`),
  tenantMonthlyBudgetUsd: UsdAnswer(`the tenant's monthly budget in USD; null: none (${USD_NOTE})`),
  maxPerOperationUsd: UsdAnswer(`the most one operation may cost in USD; null: no limit (${USD_NOTE})`),
  operations: t.Array(t.String()),
  allowlist: t.Array(t.Object({ contract: t.String(), selectors: t.Array(t.String()) })),
  sponsorshipAvailable: t.Boolean({ description: 'whether this deployment has a bundler, a paymaster and its signer (sealed in the database: slipway paymaster signer) for the network' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'GasPolicy' })

export const GasPolicies = t.Object({ data: t.Array(GasPolicy) }, { title: 'GasPolicies' })

const UsageLine = t.Object({
  network: t.String(),
  dayWei: t.String({
    description: 'gas counted today (UTC): settled operations at what they cost, those in flight at their maximum (ERC-7677 ones until their receipt is found, '
      + 'or nothing once expired unused)',
  }),
  dayUsd: t.String({
    pattern: USD_TOTAL_PATTERN,
    description: 'the same in USD, an exact decimal string without trailing zeros: each operation at the rate recorded when it was sponsored (one without a rate counts 0)',
  }),
  dayOperations: integer(),
  monthWei: t.String({ description: 'the same for the UTC month' }),
  monthUsd: t.String({ pattern: USD_TOTAL_PATTERN, description: 'the same for the UTC month, in USD' }),
  monthOperations: integer(),
})

export const GasUsage = t.Object({
  scope: t.Union([t.Literal('tenant'), t.Literal('user')]),
  userId: t.Union([t.String(), t.Null()]),
  day: t.String({ description: 'UTC day, YYYY-MM-DD' }),
  month: t.String({ description: 'UTC month, YYYY-MM' }),
  networks: t.Array(UsageLine),
}, { title: 'GasUsage' })

export const TenantIdParam = t.Object({ id: t.String() })
export const PolicyParams = t.Object({ id: t.String(), network: t.String({ minLength: 1, maxLength: 64 }) })
export const UsageQuery = t.Object({ userId: t.Optional(t.String({ format: 'uuid' })) })
export const NetworkParam = t.Object({ network: t.String({ minLength: 1, maxLength: 64 }) })

/** ERC-7677 and JSON-RPC 2.0: one request per POST. */
export const JsonRpcRequest = t.Object({
  jsonrpc: t.Literal('2.0'),
  id: t.Union([t.String({ maxLength: 128 }), integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), t.Null()], { description: 'the request id, echoed in the answer' }),
  method: t.String({ maxLength: 64 }),
  params: t.Optional(t.Array(t.Unknown())),
}, {
  title: 'PaymasterRpcRequest',
  examples: [{ jsonrpc: '2.0', id: 1, method: 'pm_getPaymasterStubData', params: [{ sender: '0x…' }, '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', '0xaa36a7', {}] }],
})

export type JsonRpcRequest = typeof JsonRpcRequest.static

export const JsonRpcResponse = t.Object({
  jsonrpc: t.Literal('2.0'),
  id: t.Union([t.String(), t.Number(), t.Null()]),
  result: t.Optional(t.Unknown()),
  error: t.Optional(t.Object({ code: integer(), message: t.String(), data: t.Optional(t.Unknown()) })),
}, { title: 'PaymasterRpcResponse' })
