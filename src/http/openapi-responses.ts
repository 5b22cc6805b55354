/**
 * The answers of the OpenAPI document, finished in one place (finishDocument in ./openapi.ts
 * calls these):
 * - every 4xx and 5xx body is the one envelope, `#/components/schemas/Error` (./schemas.ts),
 *   whose `details` lists ValidationIssue items on every validation failure;
 * - every success answer has a description (no generated "Response for status 201") and an
 *   example built from its schema, or the route's own from RESPONSE_EXAMPLES below;
 * - the envelope's `code` and `details.code` point at the enums of the one code table.
 * tests/platform/openapi-responses.test.ts checks each example against its schema.
 */
import { errorCodesAt } from '../lib/error-codes'
import { ERROR_CODE_AT, ErrorEnvelope, ValidationIssue } from './schemas'

type Schema = Record<string, unknown>
type Media = { schema?: Schema; example?: unknown }
type Response = { description?: string; content?: Record<string, Media> }
export type DocOperation = { operationId?: string; summary?: string; responses?: Record<string, Response> }

export const ERROR_REF = '#/components/schemas/Error'


/** The enums of the code table (src/lib/error-codes.ts): `code` and `details.code` of the error envelopes. */
export const ERROR_CODE_SCHEMAS = {
  ErrorCode: { type: 'string', enum: errorCodesAt('code'), description: 'An error answer\'s `code`' },
  ErrorDetailCode: { type: 'string', enum: errorCodesAt('details'), description: 'An error answer\'s `details.code` (the bank ramp\'s, the idempotency\'s and the sandbox faucet\'s)' },
  // any shape; where it carries a `code`, one of ErrorDetailCode (properties bind objects only)
  ErrorDetails: {
    description: 'Every validation failure lists ValidationIssue items; other errors may give an object, whose `code`, when it has one, is an ErrorDetailCode',
    anyOf: [
      { type: 'array', items: { $ref: '#/components/schemas/ValidationIssue' } },
      { type: 'object', properties: { code: { $ref: '#/components/schemas/ErrorDetailCode' } }, additionalProperties: true },
    ],
  },
}

/**
 * Every schema node marked with ERROR_CODE_AT points at its enum: `code` becomes a
 * reference to ErrorCode, `details` to ErrorDetails (whose `code`, when it has one, is an
 * ErrorDetailCode). They stand once, in `components.schemas`, not in each error answer.
 */
export function withErrorCodes<T extends { paths?: unknown; components?: { schemas?: Record<string, unknown> } }>(doc: T, integersAsSent: (node: unknown) => unknown): T {
  const mark = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(mark)
    if (!node || typeof node !== 'object') return node
    const { [ERROR_CODE_AT]: at, ...obj } = node as Record<string, unknown>
    if (at === 'code') return { $ref: '#/components/schemas/ErrorCode', ...(obj.description ? { description: obj.description } : {}), ...(obj.examples ? { examples: obj.examples } : {}) }
    if (at === 'details') return { $ref: '#/components/schemas/ErrorDetails', ...(obj.description ? { description: obj.description } : {}) }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, mark(v)]))
  }
  doc.paths = mark(doc.paths) as T['paths']
  const schemas = { ...(mark(doc.components?.schemas ?? {}) as Record<string, unknown>), ...(integersAsSent(errorComponents(mark)) as Record<string, unknown>), ...ERROR_CODE_SCHEMAS }
  doc.components = { ...doc.components, schemas }
  return doc
}

/** Descriptions of success answers that say more than their schema's title, by operationId. */
export const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  register: 'Created: registered and signed in: the access and refresh tokens, the user, and the wallet when one was asked for',
  login: 'Signed in: the access and refresh tokens and the user',
  refresh: 'A new access token (and, with rotation on, a new refresh token)',
  adminLogin: 'Signed in as a platform admin: the tokens',
  createTenant: 'Created: the tenant, with its API key and secret (the secret is shown here and by its api-secret read)',
  createWallet: 'Created: the wallet',
  importWallet: 'Created: the wallet, imported',
  health: 'The process is up',
}

/** Example answers a schema cannot suggest well, by `operationId status`. */
export const RESPONSE_EXAMPLES: Record<string, unknown> = {}

const STATUS_WORDS: Record<string, string> = { '201': 'Created', '202': 'Accepted' }
const GENERIC = /^Response for status \d+$/

/** The one envelope as components: `Error`, and the ValidationIssue its `details` lists. */
export function errorComponents(mark: (node: unknown) => unknown): Record<string, unknown> {
  return {
    Error: mark(JSON.parse(JSON.stringify(ErrorEnvelope))),
    ValidationIssue: JSON.parse(JSON.stringify(ValidationIssue)),
  }
}

/** Points every error answer's JSON body at the one envelope, keeping the answer's own description. */
export function oneErrorEnvelope(op: DocOperation) {
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!/^[45]/.test(status) || !response.content) continue
    response.content = { 'application/json': { schema: { $ref: ERROR_REF } } }
  }
}

const ACRONYMS: Record<string, string> = { api: 'API', mpc: 'MPC', iban: 'IBAN', dapp: 'dApp', qr: 'QR', jwk: 'JWK' }
const humanize = (title: string) => title
  .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
  .split(' ')
  .map((w, i) => ACRONYMS[w.toLowerCase()] ?? (i === 0 ? w : w.toLowerCase()))
  .filter((w, i, all) => !(i > 0 && i === all.length - 1 && w === 'created'))
  .join(' ')
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** A description and an example for every success answer. */
export function documentSuccess(op: DocOperation, resolve: (ref: string) => Schema | undefined) {
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!/^2/.test(status)) continue
    const media = response.content ? Object.values(response.content)[0] : undefined
    const schema = media?.schema
    if (!response.description || GENERIC.test(response.description)) response.description = describe(op, status, schema)
    for (const m of Object.values(response.content ?? {})) {
      if (!m.schema || m.example !== undefined) continue
      const own = RESPONSE_EXAMPLES[`${op.operationId} ${status}`]
      m.example = own !== undefined ? own : sample(m.schema, '', resolve, 0)
    }
  }
}

function describe(op: DocOperation, status: string, schema: Schema | undefined): string {
  const own = op.operationId ? RESPONSE_DESCRIPTIONS[op.operationId] : undefined
  const word = STATUS_WORDS[status]
  if (own) return own
  if (typeof schema?.title === 'string') {
    const what = humanize(schema.title).replace(/^Created /, '')
    const lower = /^[A-Z][a-z]/.test(what) ? `${what.charAt(0).toLowerCase()}${what.slice(1)}` : what
    return word ? `${word}: ${lower}` : capital(what)
  }
  // no title: the operation's summary says what was done
  return word ? `${word}. ${op.summary ?? ''}`.trim() : op.summary ?? 'Done'
}

/** Samples for the patterns the answers use; any other pattern gets the first candidate that matches. */
const PATTERN_SAMPLES: Record<string, string> = {
  '^0x[0-9a-fA-F]{40}$': '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$': '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '^0x[0-9a-fA-F]{64}$': '0x8b1a944cf13a9a1c08facb2c9e98623ef3254d2ddb48113885c3e8e97fec8db9',
  '^[A-Za-z0-9]{2,12}$': 'USDC',
  '^[a-z0-9][a-z0-9_.-]{0,63}$': 'sepolia',
  '^[0-9a-f]{32}$': '0f3b7c2a9e1d4b6f8a0c2e4d6b8f0a1c',
}
const CANDIDATES = ['1000000', '1.5', '12.50', '0x00ff', 'USDC', 'sepolia', 'a']

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const HASH = '0x8b1a944cf13a9a1c08facb2c9e98623ef3254d2ddb48113885c3e8e97fec8db9'
const STRING_HINTS: Array<[RegExp, string]> = [
  [/^(chain|network)$/, 'sepolia'],
  [/(^a|A)ddress$|^(to|from|pool|asset|payTo|owner|spender|relayer)$/, ADDRESS],
  [/(^h|H)ash$|^(r|s|signature)$/, HASH],
  [/(^a|A)mount$|(^b|B)alance$|(^f|F)ee$|^(value|gas|nonce)$/, '1000000'],
  [/^(name|label|displayName|agentName)$/, 'Main'],
  [/^(description|message|note|reason|failureReason|lastError)$/, 'A few words'],
  [/currency$/i, 'EUR'],
  [/^symbol$/, 'USDC'],
  [/email/i, 'alice@example.com'],
  [/^username$/, 'alice'],
  [/url$/i, 'https://app.example.com/path'],
  [/(^id|Id)$/, '7c9e6679-7425-40de-944b-e07fc1f90ae7'],
]

function sample(s: Schema, key: string, resolve: (ref: string) => Schema | undefined, depth: number): unknown {
  if (depth > 12) return null
  if (typeof s.$ref === 'string') {
    const target = resolve(s.$ref)
    return target ? sample(target, key, resolve, depth + 1) : null
  }
  if ('const' in s) return s.const
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0]
  if ('example' in s) return s.example
  if ('default' in s) return s.default
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0]
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined
  if (branches?.length) {
    const useful = branches.find((b) => b.type !== 'null') ?? branches[0]!
    return sample({ ...s, anyOf: undefined, oneOf: undefined, ...useful }, key, resolve, depth + 1)
  }
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((b) => sample(b as Schema, key, resolve, depth + 1)))
  const type = Array.isArray(s.type) ? (s.type as string[]).find((x) => x !== 'null') : (s.type as string | undefined)
  switch (type ?? (s.properties ? 'object' : undefined)) {
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) out[k] = sample(v, k, resolve, depth + 1)
      return out
    }
    case 'array': {
      const items = (s.items ?? {}) as Schema
      const n = Math.max(1, Number(s.minItems ?? 1))
      const one = sample(items, key, resolve, depth + 1)
      return s.maxItems === 0 ? [] : Array.from({ length: s.uniqueItems && n > 1 ? 1 : n }, () => one)
    }
    case 'string': return sampleString(s, key)
    case 'integer': return sampleNumber(s, true)
    case 'number': return sampleNumber(s, false)
    case 'boolean': return true
    case 'null': return null
    default: return null
  }
}

function sampleString(s: Schema, key: string): string {
  let out: string
  if (s.format === 'uuid') out = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
  else if (s.format === 'date-time') out = '2026-11-28T09:30:00.000Z'
  else if (s.format === 'date') out = '2026-11-28'
  else if (s.format === 'email') out = 'alice@example.com'
  else if (s.format === 'uri' || s.format === 'url') out = 'https://app.example.com/path'
  else if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern)
    out = PATTERN_SAMPLES[s.pattern] ?? CANDIDATES.find((c) => re.test(c)) ?? ''
  } else out = STRING_HINTS.find(([re]) => re.test(key))?.[1] ?? 'text'
  const min = Number(s.minLength ?? 0)
  const max = s.maxLength === undefined ? Infinity : Number(s.maxLength)
  if (out.length < min) out = out.padEnd(min, 'x')
  if (out.length > max) out = out.slice(0, max)
  return out
}

function sampleNumber(s: Schema, integer: boolean): number {
  const min = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : undefined
  const max = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : undefined
  let n = min ?? (integer ? 1 : 1.5)
  if (max !== undefined && n > max) n = max
  return integer ? Math.ceil(n) : n
}
