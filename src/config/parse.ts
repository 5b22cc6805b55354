/**
 * Reading environment variables: blanks, whole numbers, booleans, URLs, the variables that
 * come in families (RPC_URL_*, AAVE_POOL_*), master keys and the FCM service account. Each
 * records what is wrong in `problems` rather than throwing, so every bad variable is named.
 */
import { readFileSync } from 'node:fs'
import type { Config } from './schema'

export type Env = Record<string, string | undefined>

export function blankToUndefined(v: string | undefined) {
  return v === undefined || v.trim() === '' ? undefined : v.trim()
}

export function isHttpUrl(v: string) {
  try {
    const u = new URL(v)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

/** Parses `KEY=origin` pairs such as `hooks.slipway.test=http://127.0.0.1:4000`. */
export function parseDevRoutes(raw: string | undefined, problems: string[]): Record<string, string> {
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
export function parseRpcUrls(env: Env, problems: string[]): Record<string, string> {
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
export function parseAavePools(env: Env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('AAVE_POOL_') || !value) continue
    out[key.slice('AAVE_POOL_'.length).toLowerCase().replace(/_/g, '-')] = value
  }
  return out
}

const networkIdOf = (key: string, prefix: string) => key.slice(prefix.length).toLowerCase().replace(/_/g, '-')

/** `BUNDLER_URL_<REGISTRY ID>` (gas sponsorship's ERC-4337 bundlers), keyed by registry id; config.ts checks each URL. */
export function parseBundlerUrls(env: Env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (key.startsWith('BUNDLER_URL_') && value) out[networkIdOf(key, 'BUNDLER_URL_')] = value
  return out
}

/** `PAYMASTER_ADDRESS_<REGISTRY ID>` (gas sponsorship's verifying paymasters), keyed by registry id; the schema checks each address. */
export function parsePaymasterAddresses(env: Env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (key.startsWith('PAYMASTER_ADDRESS_') && value) out[networkIdOf(key, 'PAYMASTER_ADDRESS_')] = value
  return out
}

/** `MASTER_KEY_PREVIOUS`: comma-separated `<version>:<key>` entries (64 hex characters or base64). */
export function parsePreviousKeys(raw: string | undefined, current: number, problems: string[]): Record<string, string> {
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
export function parseFcm(env: Env, problems: string[]): { serviceAccount?: Config['fcmServiceAccount']; projectId?: string } {
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

export function boolVar(env: Env, name: string, problems: string[]): boolean {
  const raw = blankToUndefined(env[name])
  if (raw === undefined || raw === 'false') return false
  if (raw === 'true') return true
  problems.push(`${name}: "${raw}" is not true or false`)
  return false
}

export function intVar(env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = blankToUndefined(env[name])
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw)) {
    problems.push(`${name}: "${raw}" is not a whole number`)
    return fallback
  }
  return Number(raw)
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
