import { AppError, SchemaValidationError } from './errors'
import { unknownProperties } from './validation'
/** Per-request values kept beside the Request object, without growing Elysia's context. */
export interface RequestState {
  id: string
  start: number
  /** raw body bytes, kept for tenant signatures */
  raw?: Uint8Array
  /** the content type of a body that is not JSON: a route with a body schema answers 415 naming JSON */
  notJson?: string
  /** work that must be done before an error answer leaves (an idempotency key released), run by the core error handler */
  beforeErrorAnswer?: Array<() => Promise<void>>
}

const states = new WeakMap<Request, RequestState>()
const socketIps = new WeakMap<Request, string>()

/** Recorded by the server adapter (Bun.serve, Deno.serve) before the app sees the request. */
export function setSocketIp(request: Request, ip: string | undefined) {
  if (ip) socketIps.set(request, ip)
}
export const socketIpOf = (request: Request) => socketIps.get(request)

export function initState(request: Request): RequestState {
  const state: RequestState = { id: crypto.randomUUID(), start: performance.now() }
  states.set(request, state)
  return state
}

export function stateOf(request: Request): RequestState {
  let s = states.get(request)
  if (!s) s = initState(request)
  return s
}

/** Throws a schema 400 when the body as sent names properties the schema does not (see unknownProperties). */
export function rejectUnknownProperties(schema: unknown, request: Request) {
  const raw = states.get(request)?.raw
  if (!raw?.length) return
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder().decode(raw))
  } catch {
    throw new AppError(400, 'Bad Request', 'Request body is not valid JSON')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError(400, 'Bad Request', 'Request body must be a JSON object')
  const issues = unknownProperties(schema, body)
  if (issues.length) throw new SchemaValidationError(issues)
}
