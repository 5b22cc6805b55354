/**
 * Where an error becomes an answer: `errorBody` writes the one error envelope,
 * `{ statusCode, error, message, details?, code? }`, for every route; core.ts's onError calls
 * it for every error. The classes live below HTTP (src/lib/errors.ts) and are handed on here
 * for the modules' imports.
 */
import { SchemaValidationError, ValidationError, type AppError, type ValidationIssue } from '../lib/errors'

export * from '../lib/errors'

/**
 * How a route writes its errors. Every route answers the envelope; `detail` routes (user and
 * wallet creation, whose older shape was `{ detail }`) add `detail`, the message in one line
 * with the first issue's field, so clients written to that shape keep working.
 */
export type ErrorStyle = 'standard' | 'detail'

export function errorBody(err: AppError, style: ErrorStyle): Record<string, unknown> {
  const body: Record<string, unknown> = { statusCode: err.status, error: err.label, message: err.message }
  if (err.details !== undefined) body.details = err.details
  if (err.code) body.code = err.code
  if (err.extra) Object.assign(body, err.extra)
  if (style === 'detail') body.detail = err instanceof SchemaValidationError || err instanceof ValidationError ? describeIssues(err.issues, err.message) : err.message
  return body
}

function describeIssues(issues: ValidationIssue[], message: string): string {
  const first = issues[0]
  if (!first) return message
  if (first.keyword === 'endpointCheck') return first.message
  const where = first.path ? first.path.replace(/^\//, '').replace(/\//g, '.') : 'body'
  return `${message}: ${where} ${first.message}`
}
