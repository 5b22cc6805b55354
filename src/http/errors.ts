/**
 * Where an error becomes an answer: `errorBody` writes the spec's envelopes, shaped by the
 * route's declared error style; core.ts's onError calls it for every error. The classes
 * live below HTTP (src/lib/errors.ts) and are handed on here for the modules' imports.
 */
import { SchemaValidationError, type AppError, type SchemaIssue } from '../lib/errors'

export * from '../lib/errors'

/**
 * How a route writes its errors. The spec has several:
 * - `standard`: `{ statusCode, error, message, details?, code? }`
 * - `signin`: `{ error, message }` (sign-in routes; 422 is `{ statusCode, error, message, details }`), with
 *   `code` when the error has one (a passkey sign-in's refusals tell their cause by it)
 * - `reset`: `{ error }` with the human text (password-reset routes)
 * - `detail`: `{ detail }` (user and wallet creation; `code` kept when set)
 */
export type ErrorStyle = 'standard' | 'signin' | 'reset' | 'detail'

export function errorBody(err: AppError, style: ErrorStyle): Record<string, unknown> {
  switch (style) {
    case 'signin': {
      // 422 is the spec's endpoint-check envelope, `statusCode` included (its own example is registration's password strength)
      if (err.status === 422) return { statusCode: 422, error: err.label, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) }
      return err.code ? { error: err.label, message: err.message, code: err.code } : { error: err.label, message: err.message }
    }
    case 'reset':
      return { error: err.status === 400 && err instanceof SchemaValidationError ? describeIssues(err.issues) : err.message }
    case 'detail': {
      const body: Record<string, unknown> = {
        detail: err instanceof SchemaValidationError ? describeIssues(err.issues) : err.message,
      }
      if (err.code) body.code = err.code
      return body
    }
    default: {
      const body: Record<string, unknown> = { statusCode: err.status, error: err.label, message: err.message }
      if (err.details !== undefined) body.details = err.details
      if (err.code) body.code = err.code
      if (err.extra) Object.assign(body, err.extra)
      return body
    }
  }
}

function describeIssues(issues: SchemaIssue[]): string {
  const first = issues[0]
  if (!first) return 'Request validation failed'
  const where = first.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : 'body'
  return `Request validation failed: ${where} ${first.message}`
}
