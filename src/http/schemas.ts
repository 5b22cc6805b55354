/** Shared OpenAPI/TypeBox schemas: error envelopes and pagination. */
import { t, type TSchema } from 'elysia'
import { integer } from './integer'
import type { ErrorStyle } from './errors'
import { prose } from './prose'

/**
 * Marks where an envelope carries an error code: `code` or `details`. The document points
 * these at the `ErrorCode` and `ErrorDetailCode` enums of the one code table (finishDocument
 * in ./openapi.ts), once in `components`, not inline in each of the many error answers.
 */
export const ERROR_CODE_AT = 'x-error-code-at'

/** One item of `details` in every validation failure (ValidationIssue, src/lib/errors.ts). */
export const ValidationIssue = t.Object({
  path: t.String({ description: 'JSON pointer to the field at fault (`/wallet/chain`); `""` for the whole input' }),
  message: t.String({ description: 'what is wrong with it, in words' }),
  instancePath: t.String({ description: 'Ajv\'s: the pointer to the value that failed (for `required`, the object missing the property)' }),
  schemaPath: t.String({ description: 'Ajv\'s: the schema rule that failed; `""` for an endpoint check' }),
  keyword: t.String({ description: 'the JSON Schema keyword that failed (`required`, `minLength`...), or `endpointCheck` (422)' }),
  params: t.Record(t.String(), t.Any(), { description: 'Ajv\'s: the keyword\'s parameters, such as `{ missingProperty }`' }),
}, {
  title: 'ValidationIssue',
  description: 'One validation problem. Every validation failure, the 400 of a schema and the 422 of an endpoint check, lists these in `details`.',
})

/**
 * The one error envelope every route answers with, for every 4xx and 5xx. `finishDocument`
 * (./openapi.ts) puts it once in `components.schemas.Error` and points every error response at it.
 */
export const ErrorEnvelope = t.Object({
  statusCode: integer({ description: 'HTTP status repeated in the body' }),
  error: t.String({ description: 'error class name or label, e.g. `NotFoundError`, `Bad Request`, `Validation Error`' }),
  message: t.String({ description: 'human text; branch on the status and `code`, not on this' }),
  details: t.Optional(t.Any({
    description: prose`
      optional. Every validation failure (400 \`Request validation failed\`, 422) lists
      ValidationIssue items here; other errors may give an object (the bank ramp's, with its \`code\`)`,
    [ERROR_CODE_AT]: 'details',
  })),
  code: t.Optional(t.String({ description: 'optional machine-readable code', [ERROR_CODE_AT]: 'code' })),
  retryable: t.Optional(t.Boolean({ description: 'blockchain errors (`BlockchainError`): whether the same request may succeed later' })),
  suggestedAction: t.Optional(t.String({ description: 'blockchain errors: what the client can do' })),
  fallbackAvailable: t.Optional(t.Boolean({ description: 'blockchain errors: whether another route can do it' })),
  detail: t.Optional(t.String({
    description: 'user and wallet creation only: the message in one line (the shape the spec gave these routes, kept for its clients)',
  })),
}, { title: 'Error', description: 'The error envelope of every 4xx and 5xx answer.' })

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: schema validation failed, unparsable JSON, or a value the endpoint refuses',
  401: 'Missing or invalid credentials',
  403: 'Authenticated but not allowed',
  404: 'Not found (another tenant\'s ids are not found either)',
  409: 'Conflict with existing data',
  422: 'Passed schema validation but failed the endpoint\'s checks',
  429: 'Rate limit exceeded; see `retry-after`',
  500: 'Unexpected failure (`Internal server error`, no internal details)',
  501: 'A required contract is not available on the network',
  502: 'A service the API calls failed',
  503: 'A dependency is temporarily unavailable',
}


/**
 * Error responses for a route's `response` map, all in the one envelope. Every route
 * documents 400 (a malformed id, query or body is refused before the route runs) and 500.
 * The first argument names the route's error style (./errors.ts): `detail` adds its field.
 */
export function errorResponses(_style: ErrorStyle, ...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {}
  for (const s of [...new Set([400, ...statuses, 500])].sort()) {
    const description = DESCRIPTIONS[s] ?? 'Error'
    out[s] = t.Unsafe({ ...ErrorEnvelope, description })
  }
  return out
}

export const OffsetPagination = t.Object({
  total: integer(), limit: integer(), offset: integer(), hasMore: t.Boolean(),
})

/**
 * The one pagination vocabulary of every list route. Every number a client sends is
 * bounded, so no value can overflow SQLite's 64-bit integers (`offset=1e19`, or a `page`
 * so large that (page - 1) × limit passes 2^63); past the bounds the schema answers 400.
 */
export const MAX_OFFSET = 1_000_000
/**
 * 1000000 → `1,000,000`, as `toLocaleString('en')` writes it, without Intl: the first
 * `toLocaleString` of a process loads ICU's number formatting and data: 1.5 ms of CPU and 2.5 MiB
 * resident (a compiled Bun, measured alone).
 */
export const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
export const MAX_PAGE = 10_000
export const Limit = (max = 100, fallback = 50) => integer({ minimum: 1, maximum: max, default: fallback, description: `at most ${max}` })
export const Offset = integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: `0 to ${grouped(MAX_OFFSET)}` })
export const PageNumber = integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `1 to ${grouped(MAX_PAGE)}` })

export const LimitOffsetQuery = t.Object({
  limit: t.Optional(Limit()),
  offset: t.Optional(Offset),
})

export const Ok = t.Object({ ok: t.Literal(true) })

/** Offset pagination as the spec's list endpoints answer it. */
export function page<T>(data: T[], total: number, limit: number, offset: number) {
  return { data, pagination: { total, limit, offset, hasMore: offset + data.length < total } }
}
