import { AppError, SchemaValidationError } from './errors'
import { unknownProperties } from './validation'
/** What the Bun server adapter can tell of a request's socket. */
export interface SocketSource {
  requestIP(request: Request): { address: string } | null
}

/** Per-request values kept beside the Request object, without growing Elysia's context. */
export interface RequestState {
  id: string
  start: number
  /** the matched route's pattern (`/v1/users/:id`), once routed */
  route?: string
  /** raw body bytes, kept for tenant signatures */
  raw: Uint8Array | undefined
  /** the content type of a body that is not JSON: a route with a body schema answers 415 naming JSON */
  notJson?: string
  /** work that must be done before an error answer leaves (an idempotency key released), run by the core error handler */
  beforeErrorAnswer?: Array<() => Promise<void>>
  /** the socket's address once known ('' when the server cannot tell) */
  socketIp: string | undefined
  /** asked for the address only when a route needs it (client-IP rules): most requests never do */
  server: SocketSource | undefined
}

/**
 * Kept on the Request itself under a symbol: a WeakMap lookup per access cost more than
 * the `/health` route it served, and the state lives exactly as long as its request.
 */
const STATE = Symbol('slipway.requestState')
type WithState = Request & { [STATE]?: RequestState }

/** Recorded by a server adapter that knows the address up front (Deno.serve). */
export function setSocketIp(request: Request, ip: string | undefined) {
  stateOf(request).socketIp = ip ?? ''
}

/** Recorded by the Bun adapter: the address is read from the server on first use. */
export function setSocketSource(request: Request, server: SocketSource): RequestState {
  const state = stateOf(request)
  state.server = server
  return state
}

export function socketIpOf(request: Request): string | undefined {
  const s = (request as WithState)[STATE]
  if (!s) return undefined
  if (s.socketIp === undefined) s.socketIp = s.server?.requestIP(request)?.address ?? ''
  return s.socketIp || undefined
}

export function initState(request: Request): RequestState {
  const state: RequestState = { id: crypto.randomUUID(), start: performance.now(), raw: undefined, socketIp: undefined, server: undefined }
  ;(request as WithState)[STATE] = state
  return state
}

export function stateOf(request: Request): RequestState {
  return (request as WithState)[STATE] ?? initState(request)
}

/** Throws a schema 400 when the body as sent names properties the schema does not (see unknownProperties). */
export function rejectUnknownProperties(schema: unknown, request: Request) {
  const raw = (request as WithState)[STATE]?.raw
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
