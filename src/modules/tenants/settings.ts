/**
 * Tenant settings (DECISIONS.md): defaults, the PATCH schema (any subset, deep-merged),
 * and the public view in which write-only secrets show only whether they are set.
 */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import type { Sealer } from '../../lib/crypto'
import { passkeyDefaults, PasskeySettingsPatch, PasskeySettingsView } from './passkey-settings'

const Url = t.String({ maxLength: 2048, pattern: '^https?://' })

const RampFunctions = t.Object({ kyc: t.Boolean(), payin: t.Boolean(), payout: t.Boolean() })
const RampEnvInput = t.Partial(t.Object({
  connected: t.Boolean(),
  baseUrl: t.Union([Url, t.Null()]),
  apiKey: t.Union([t.String({ minLength: 1, maxLength: 512, description: 'write-only' }), t.Null()]),
  webhookKey: t.Union([t.String({ minLength: 1, maxLength: 512, description: 'write-only' }), t.Null()]),
  functions: t.Partial(RampFunctions),
}))
const RampEnvView = t.Object({
  connected: t.Boolean(),
  baseUrl: t.Union([t.String(), t.Null()]),
  apiKeySet: t.Boolean(),
  webhookKeySet: t.Boolean(),
  functions: RampFunctions,
})

const CardEnvInput = t.Partial(t.Object({
  connected: t.Boolean(),
  baseUrl: t.Union([Url, t.Null()], { description: 'the provider\'s API base (Stripe: `https://api.stripe.com`); null in the sandbox: the embedded sandbox provider' }),
  apiKey: t.Union([t.String({ minLength: 1, maxLength: 512, description: 'write-only: the provider\'s secret key' }), t.Null()]),
  webhookKey: t.Union([t.String({ minLength: 1, maxLength: 512, description: 'write-only: the provider\'s webhook signing secret (`whsec_...`)' }), t.Null()]),
}))
const CardEnvView = t.Object({ connected: t.Boolean(), baseUrl: t.Union([t.String(), t.Null()]), apiKeySet: t.Boolean(), webhookKeySet: t.Boolean() })

/** A token a tenant adds to a network (by registry id) beyond the seeded list. */
export const CustomToken = t.Object({
  symbol: t.String({ minLength: 1, maxLength: 20 }),
  name: t.String({ minLength: 1, maxLength: 100 }),
  decimals: integer({ minimum: 0, maximum: 36 }),
  address: t.String({ pattern: '^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$', description: 'contract (EVM) or mint (Solana)' }),
}, { additionalProperties: false })

/** The agent payments setting's meaning, in the OpenAPI of the settings and of the agent routes. */
export const TENANT_MANAGES_NOTE = prose`
  The tenant declares in writing that it manages its users' custodial wallets: its agents then pay
  from any user's custodial wallet without that user's consent (docs/agent-payments.md, "The wallet
  owner's consent"). Default false: an agent pays from a user's wallet only once that user consented
  (\`POST /v1/agent-payments/agents/{agentId}/wallet-consent\` with their own token). Only a
  platform admin may turn it on (a tenantadmin gets 403 \`SETTING_PLATFORM_ADMIN_ONLY\`); either may
  turn it off; every change is in the tenant's activity log`

export const WalletMode = t.Union([t.Literal('custodial'), t.Literal('non_custodial'), t.Literal('mpc')])

export const TenantSettingsPatch = t.Partial(t.Object({
  refreshTokenRotation: t.Boolean(),
  walletMode: WalletMode,
  passwordReset: t.Partial(t.Object({
    enabled: t.Boolean(),
    tokenTtlMinutes: integer({ minimum: 5, maximum: 1440 }),
    senderName: t.String({ minLength: 1, maxLength: 100 }),
    resetLinkBaseUrl: Url,
  })),
  breachedPasswordCheck: t.Partial(t.Object({ onRegister: t.Boolean() })),
  social: t.Partial(t.Object({
    googleClientIds: t.Array(t.String({ minLength: 1, maxLength: 255 }), { maxItems: 20 }),
    appleClientIds: t.Array(t.String({ minLength: 1, maxLength: 255 }), { maxItems: 20 }),
  })),
  chains: t.Partial(t.Object({
    enabled: t.Union([t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }), t.Null()]),
    rpc: t.Record(t.String({ pattern: '^[a-z0-9-]{1,64}$' }), t.Union([t.String({ maxLength: 2048, pattern: '^(https?|wss?)://' }), t.Null()])),
    tokens: t.Record(t.String({ pattern: '^[a-z0-9-]{1,64}$' }), t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 500 })),
    customTokens: t.Record(t.String({ pattern: '^[a-z0-9-]{1,64}$' }), t.Union([t.Array(CustomToken, { maxItems: 100 }), t.Null()])),
  })),
  bankRamp: t.Partial(t.Object({ sandbox: RampEnvInput, production: RampEnvInput })),
  cardOnramp: t.Partial(t.Object({ enabled: t.Boolean(), sandbox: CardEnvInput, production: CardEnvInput })),
  agentPayments: t.Partial(t.Object({ tenantManagesUserWallets: t.Boolean({ description: TENANT_MANAGES_NOTE }) })),
  passkeys: PasskeySettingsPatch,
}), { additionalProperties: false })
export type TenantSettingsPatch = typeof TenantSettingsPatch.static

export const TenantSettingsView = t.Object({
  refreshTokenRotation: t.Boolean(),
  walletMode: WalletMode,
  passwordReset: t.Object({ enabled: t.Boolean(), tokenTtlMinutes: integer(), senderName: t.String(), resetLinkBaseUrl: t.String() }),
  breachedPasswordCheck: t.Object({ onRegister: t.Boolean() }),
  social: t.Object({ googleClientIds: t.Array(t.String()), appleClientIds: t.Array(t.String()) }),
  chains: t.Object({
    enabled: t.Union([t.Array(t.String()), t.Null()], { description: '`null`: every default chain' }),
    rpc: t.Record(t.String(), t.String(), { description: 'RPC address per chain registry id, overriding the server default' }),
    tokens: t.Record(t.String(), t.Array(t.String()), {
      description: prose`
        per chain (family id for both networks, or a registry id for one): the token symbols or
        addresses that are active; a chain not listed keeps every seeded token, an empty list hides
        it`,
    }),
    customTokens: t.Record(t.String(), t.Array(CustomToken), { description: 'per network registry id: tokens added beyond the seeded list (also subject to `tokens`)' }),
  }),
  bankRamp: t.Object({ sandbox: RampEnvView, production: RampEnvView }),
  cardOnramp: t.Object({ enabled: t.Boolean(), sandbox: CardEnvView, production: CardEnvView }),
  agentPayments: t.Object({ tenantManagesUserWallets: t.Boolean({ description: TENANT_MANAGES_NOTE }) }),
  passkeys: PasskeySettingsView,
})
export type TenantSettingsView = typeof TenantSettingsView.static

/** Stored form: like the view, but secrets are sealed strings (or null). */
export interface StoredRampEnv {
  connected: boolean
  baseUrl: string | null
  apiKeySealed: string | null
  webhookKeySealed: string | null
  functions: { kyc: boolean; payin: boolean; payout: boolean }
}
export interface StoredCardEnv {
  connected: boolean
  baseUrl: string | null
  apiKeySealed: string | null
  webhookKeySealed: string | null
}
export type StoredSettings = Omit<TenantSettingsView, 'bankRamp' | 'cardOnramp'> & {
  bankRamp: { sandbox: StoredRampEnv; production: StoredRampEnv }
  cardOnramp: { enabled: boolean; sandbox: StoredCardEnv; production: StoredCardEnv }
}
const cardDefaults = (): StoredCardEnv => ({ connected: false, baseUrl: null, apiKeySealed: null, webhookKeySealed: null })

const rampDefaults = (): StoredRampEnv => ({
  connected: false, baseUrl: null, apiKeySealed: null, webhookKeySealed: null, functions: { kyc: false, payin: false, payout: false },
})

export function defaultSettings(tenantName: string, publicBaseUrl: string): StoredSettings {
  return {
    refreshTokenRotation: false,
    walletMode: 'custodial',
    passwordReset: { enabled: false, tokenTtlMinutes: 60, senderName: tenantName, resetLinkBaseUrl: publicBaseUrl },
    breachedPasswordCheck: { onRegister: false },
    social: { googleClientIds: [], appleClientIds: [] },
    chains: { enabled: null, rpc: {}, tokens: {}, customTokens: {} },
    bankRamp: { sandbox: rampDefaults(), production: rampDefaults() },
    cardOnramp: { enabled: false, sandbox: cardDefaults(), production: cardDefaults() },
    agentPayments: { tenantManagesUserWallets: false },
    passkeys: passkeyDefaults(tenantName),
  }
}

/** Settings as stored, completed with defaults for anything added since they were written. */
export function readSettings(raw: unknown, tenantName: string, publicBaseUrl: string): StoredSettings {
  return deepMerge(defaultSettings(tenantName, publicBaseUrl), (raw ?? {}) as Record<string, unknown>) as StoredSettings
}

/** Associated data of a sealed bank ramp credential (`field`: apiKey or webhookKey). */
export const bankRampAad = (tenantId: string, env: string, field: string) => `tenant:${tenantId}:bankRamp:${env}:${field}`
/** Associated data of a sealed card onramp credential (`field`: apiKey or webhookKey). */
export const cardOnrampAad = (tenantId: string, env: string, field: string) => `tenant:${tenantId}:cardOnramp:${env}:${field}`

export function applyPatch(current: StoredSettings, patch: TenantSettingsPatch, sealer: Sealer, tenantId: string): StoredSettings {
  const { bankRamp, chains, cardOnramp, ...rest } = patch
  let next = deepMerge(current, rest as Record<string, unknown>) as StoredSettings
  if (cardOnramp) {
    next = { ...next, cardOnramp: { ...next.cardOnramp, enabled: cardOnramp.enabled ?? next.cardOnramp.enabled } }
    for (const env of ['sandbox', 'production'] as const) {
      const p = cardOnramp[env]
      if (!p) continue
      const cur = next.cardOnramp[env]
      const seal = (v: string | null | undefined, field: string, old: string | null) =>
        v === undefined ? old : v === null ? null : sealer.seal(v, cardOnrampAad(tenantId, env, field))
      next.cardOnramp[env] = {
        connected: p.connected ?? cur.connected,
        baseUrl: p.baseUrl === undefined ? cur.baseUrl : p.baseUrl,
        apiKeySealed: seal(p.apiKey, 'apiKey', cur.apiKeySealed),
        webhookKeySealed: seal(p.webhookKey, 'webhookKey', cur.webhookKeySealed),
      }
    }
  }
  if (chains) {
    const rpc = { ...next.chains.rpc }
    for (const [id, url] of Object.entries(chains.rpc ?? {})) {
      if (url === null) delete rpc[id]
      else rpc[id] = url
    }
    const customTokens = { ...next.chains.customTokens }
    for (const [id, list] of Object.entries(chains.customTokens ?? {})) {
      if (list === null) delete customTokens[id]
      else customTokens[id] = list
    }
    next = { ...next, chains: { enabled: chains.enabled === undefined ? next.chains.enabled : chains.enabled, rpc, tokens: { ...next.chains.tokens, ...(chains.tokens ?? {}) }, customTokens } }
  }
  for (const env of ['sandbox', 'production'] as const) {
    const p = bankRamp?.[env]
    if (!p) continue
    const cur = next.bankRamp[env]
    const seal = (v: string | null | undefined, field: string, old: string | null) =>
      v === undefined ? old : v === null ? null : sealer.seal(v, bankRampAad(tenantId, env, field))
    next.bankRamp[env] = {
      connected: p.connected ?? cur.connected,
      baseUrl: p.baseUrl === undefined ? cur.baseUrl : p.baseUrl,
      apiKeySealed: seal(p.apiKey, 'apiKey', cur.apiKeySealed),
      webhookKeySealed: seal(p.webhookKey, 'webhookKey', cur.webhookKeySealed),
      functions: { ...cur.functions, ...p.functions },
    }
  }
  return next
}

export function viewSettings(s: StoredSettings): TenantSettingsView {
  const ramp = (e: StoredRampEnv) => ({
    connected: e.connected, baseUrl: e.baseUrl, apiKeySet: e.apiKeySealed !== null, webhookKeySet: e.webhookKeySealed !== null, functions: e.functions,
  })
  const card = (e: StoredCardEnv) => ({ connected: e.connected, baseUrl: e.baseUrl, apiKeySet: e.apiKeySealed !== null, webhookKeySet: e.webhookKeySealed !== null })
  return {
    ...s,
    bankRamp: { sandbox: ramp(s.bankRamp.sandbox), production: ramp(s.bankRamp.production) },
    cardOnramp: { enabled: s.cardOnramp.enabled, sandbox: card(s.cardOnramp.sandbox), production: card(s.cardOnramp.production) },
  }
}

/** Names of the settings a patch touches, for the activity log (values of secrets never logged). */
export function changedPaths(patch: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = []
  for (const [k, v] of Object.entries(patch)) {
    const p = prefix ? `${prefix}.${k}` : k
    if (v && typeof v === 'object' && !Array.isArray(v)) out.push(...changedPaths(v as Record<string, unknown>, p))
    else out.push(p)
  }
  return out
}

function deepMerge(base: Record<string, any>, over: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base }
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object' && !Array.isArray(base[k]) ? deepMerge(base[k], v) : v
  }
  return out
}
