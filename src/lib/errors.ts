/**
 * One error hierarchy for the whole service, below every layer that throws: modules,
 * adapters and db/ throw these, and src/http/errors.ts (`errorBody`) is the only place
 * that turns one into an HTTP answer, in the envelope the route's error style gives.
 */
import type { ErrorCode } from './error-codes'

export type { ErrorCode } from './error-codes'

export interface ErrorOptions {
  /** a code of the one table (./error-codes.ts), answered in the envelope's `code` */
  code?: ErrorCode
  details?: unknown
  /** Extra top-level fields (BlockchainError's `retryable`, `suggestedAction`...). */
  extra?: Record<string, unknown>
}

export class AppError extends Error {
  readonly code?: ErrorCode
  readonly details?: unknown
  readonly extra?: Record<string, unknown>
  constructor(
    readonly status: number,
    /** the envelope's `error` field */
    readonly label: string,
    message: string,
    opts: ErrorOptions = {},
  ) {
    super(message)
    this.name = label
    this.code = opts.code
    this.details = opts.details
    this.extra = opts.extra
  }
}

export class BadRequestError extends AppError {
  constructor(message = 'Bad request', opts?: ErrorOptions) {
    super(400, 'BadRequestError', message, opts)
  }
}
export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required', opts?: ErrorOptions) {
    super(401, 'UnauthorizedError', message, opts)
  }
}
export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden', opts?: ErrorOptions) {
    super(403, 'ForbiddenError', message, opts)
  }
}
export class NotFoundError extends AppError {
  constructor(message = 'Not found', opts?: ErrorOptions) {
    super(404, 'NotFoundError', message, opts)
  }
}
export class ConflictError extends AppError {
  constructor(message = 'Resource already exists', opts?: ErrorOptions) {
    super(409, 'ConflictError', message, opts)
  }
}
/** An endpoint check's failure as its throw site names it: the field and what is wrong. */
export interface FieldProblem {
  path: string
  message: string
  /** the rule that failed; `endpointCheck` when not named */
  keyword?: string
  params?: Record<string, unknown>
}

/** 422: the request passed schema validation but failed the endpoint's own checks. */
export class ValidationError extends AppError {
  readonly issues: ValidationIssue[]
  constructor(problems: FieldProblem[], message = 'Request validation failed', label = 'Validation Error') {
    const issues = problems.map(endpointIssue)
    super(422, label, message, { details: issues })
    this.issues = issues
  }
  /** A 422 whose message is the point, such as an unverified provider email. */
  static withMessage(message: string, path = '') {
    return new ValidationError([{ path, message }], message, 'ValidationError')
  }
}

/**
 * 400 for a value the endpoint refuses (not its schema), the field named in `details` as one
 * validation issue, the shape of every validation failure.
 */
export function refusedField(message: string, path: string, params: Record<string, unknown> = {}, code?: ErrorCode): BadRequestError {
  return new BadRequestError(message, { code, details: [endpointIssue({ path, message, params })] })
}

/** An endpoint check in the one issue shape: no schema rule, so `schemaPath` is empty. */
function endpointIssue(p: FieldProblem): ValidationIssue {
  return { path: p.path, message: p.message, instancePath: p.path, schemaPath: '', keyword: p.keyword ?? 'endpointCheck', params: p.params ?? {} }
}

export class TooManyRequestsError extends AppError {
  constructor(readonly retryAfterSeconds: number, message = `Rate limit exceeded, retry in ${retryAfterSeconds} seconds`) {
    super(429, 'Error', message)
  }
}
export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service temporarily unavailable', opts?: ErrorOptions) {
    super(503, 'ServiceUnavailableError', message, opts)
  }
}

/**
 * One item of `details` in every validation failure, the 400 of a schema and the 422 of an
 * endpoint check alike: `path` (a JSON pointer to the field at fault, `''` for the whole
 * input) and `message` say what to fix; `instancePath`, `schemaPath`, `keyword` and
 * `params` are Ajv's (the spec's 400 lists them), with `keyword` `endpointCheck` and an
 * empty `schemaPath` where the endpoint's own check failed rather than a schema rule.
 */
export interface ValidationIssue {
  path: string
  message: string
  instancePath: string
  schemaPath: string
  keyword: string
  params: Record<string, unknown>
}

/** 400 for a body, query, path or header that does not match the route's schema. */
export class SchemaValidationError extends AppError {
  constructor(readonly issues: ValidationIssue[]) {
    super(400, 'Bad Request', 'Request validation failed', { details: issues })
  }
}

/**
 * The bank ramp partner failed or refused (spec, Errors): 502 `RAMP_AUTHENTICATION_FAILED`;
 * 503 `RAMP_UNAVAILABLE`, `RAMP_TIMEOUT`, `RAMP_UNREACHABLE`, `RAMP_RATE_LIMITED`,
 * `RAMP_NOT_CONFIGURED`; a partner refusal keeps the partner's status. `details.code` names it.
 */
export class RampApiError extends AppError {
  constructor(status: number, code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(status, 'RampApiError', message, { details: { code, ...details } })
  }
}
