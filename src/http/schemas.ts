/** Shared OpenAPI/TypeBox schemas: error envelopes and pagination. */
import { t, type TSchema } from 'elysia'

/**
 * Marks where an envelope carries an error code: `code` or `details`. The document points
 * these at the `ErrorCode` and `ErrorDetailCode` enums of the one code table (finishDocument
 * in ./openapi.ts), once in `components`, not inline in each of the many error answers.
 */
export const ERROR_CODE_AT = 'x-error-code-at'

export const ErrorEnvelope = t.Object({
  statusCode: t.Integer({ description: 'HTTP status repeated in the body' }),
  error: t.String({ description: 'error class name or label, e.g. `NotFoundError`, `Bad Request`' }),
  message: t.String({ description: 'human text; branch on the status and `code`, not on this' }),
  details: t.Optional(t.Any({ description: 'optional; shape depends on the error', [ERROR_CODE_AT]: 'details' })),
  code: t.Optional(t.String({ description: 'optional machine-readable code', [ERROR_CODE_AT]: 'code' })),
}, { title: 'Error', description: 'The error envelope.' })

export const SchemaErrorEnvelope = t.Object({
  statusCode: t.Literal(400),
  error: t.Literal('Bad Request'),
  message: t.Literal('Request validation failed'),
  details: t.Array(t.Object({
    instancePath: t.String(), schemaPath: t.String(), keyword: t.String(), params: t.Record(t.String(), t.Any()), message: t.String(),
  })),
}, { title: 'SchemaValidationError', description: 'Schema validation failed (Ajv-style details).' })

export const UnprocessableEnvelope = t.Object({
  statusCode: t.Literal(422),
  error: t.String({ examples: ['Validation Error'] }),
  message: t.String({ examples: ['Request validation failed'] }),
  details: t.Array(t.Object({ path: t.String(), message: t.String() })),
}, { title: 'UnprocessableError', description: 'Passed schema validation but failed the endpoint\'s own checks.' })

export const SigninError = t.Object({
  statusCode: t.Optional(t.Literal(422, { description: 'only on 422' })),
  error: t.String({ examples: ['UnauthorizedError'] }),
  message: t.String({ examples: ['Invalid credentials'] }),
  details: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }), { description: 'only on 422' })),
  code: t.Optional(t.String({ description: 'a machine-readable code, when the refusal has one (a passkey sign-in\'s refusals)', [ERROR_CODE_AT]: 'code' })),
}, {
  title: 'SigninError',
  description: 'Sign-in routes answer errors with `{ error, message }`, and `code` when the refusal has one; 422 adds `statusCode` and `details`.',
})

export const ResetError = t.Object({ error: t.String() }, { title: 'ResetError', description: 'Password-reset routes answer errors with `{ error }` only.' })

export const DetailError = t.Object({
  detail: t.String(),
  code: t.Optional(t.String({ examples: ['PRIMARY_WALLET_EXISTS'], [ERROR_CODE_AT]: 'code' })),
}, { title: 'DetailError', description: 'User and wallet creation answer errors with `{ detail }`.' })

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

type Style = 'standard' | 'signin' | 'reset' | 'detail'

/**
 * Error responses for a route's `response` map, in the route's error style. Every route
 * documents 400 (a malformed id, query or body is refused before the route runs) and 500.
 */
export function errorResponses(style: Style, ...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {}
  for (const s of [...new Set([400, ...statuses, 500])].sort()) {
    const description = DESCRIPTIONS[s] ?? 'Error'
    let schema: TSchema
    if (style === 'signin') schema = SigninError
    else if (style === 'reset') schema = ResetError
    else if (style === 'detail') schema = DetailError
    else if (s === 400) schema = t.Union([SchemaErrorEnvelope, ErrorEnvelope])
    else if (s === 422) schema = UnprocessableEnvelope
    else schema = ErrorEnvelope
    out[s] = t.Unsafe({ ...schema, description })
  }
  return out
}

export const OffsetPagination = t.Object({
  total: t.Integer(), limit: t.Integer(), offset: t.Integer(), hasMore: t.Boolean(),
})

/**
 * The one pagination vocabulary of every list route. Every number a client sends is
 * bounded, so no value can overflow SQLite's 64-bit integers (`offset=1e19`, or a `page`
 * so large that (page - 1) × limit passes 2^63); past the bounds the schema answers 400.
 */
export const MAX_OFFSET = 1_000_000
export const MAX_PAGE = 10_000
export const Limit = (max = 100, fallback = 50) => t.Integer({ minimum: 1, maximum: max, default: fallback, description: `at most ${max}` })
export const Offset = t.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: `0 to ${MAX_OFFSET.toLocaleString('en')}` })
export const PageNumber = t.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `1 to ${MAX_PAGE.toLocaleString('en')}` })

export const LimitOffsetQuery = t.Object({
  limit: t.Optional(Limit()),
  offset: t.Optional(Offset),
})

export const Ok = t.Object({ ok: t.Literal(true) })

/** Offset pagination as the spec's list endpoints answer it. */
export function page<T>(data: T[], total: number, limit: number, offset: number) {
  return { data, pagination: { total, limit, offset, hasMore: offset + data.length < total } }
}
