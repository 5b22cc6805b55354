/**
 * A small typed client for Slipway, for a tenant's own backend (Node 20+, Bun, Deno): it
 * signs tenant requests with the API secret, keeps a user's tokens and refreshes them.
 * The API secret must never reach a browser or a mobile app: sign on your server.
 *
 * Request and response bodies are typed from the OpenAPI document (`api-types.ts`,
 * regenerated with `npm run client:types`). Copy this folder, or import it:
 *
 *   const slipway = new SlipwayClient({ baseUrl: 'http://localhost:3000', tenant: { apiKey, apiSecret } })
 *   await slipway.register({ username: 'alice', email: 'alice@example.com', password: 'Str0ng-Passw0rd' })
 *   const me = await slipway.getUser(slipway.session!.userId)
 */
import { createHash, createHmac } from 'node:crypto'
import type { paths } from './api-types'

export type { paths } from './api-types'

export interface TenantCredentials {
  apiKey: string
  apiSecret: string
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
type Op<P extends keyof paths, M extends Method> = paths[P][M]
/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
/** The JSON body of an operation's success answer (200 or 201). */
export type ResultOf<P extends keyof paths, M extends Method> = Op<P, M> extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer B } } } ? B : R extends { 201: { content: { 'application/json': infer B } } } ? B : unknown
  : unknown

export type TokenResponse = ResultOf<'/v1/auth/login', 'post'>

/** `METHOD\nPATH?QUERY\nTIMESTAMP\nhex(SHA-256(body))`: what the tenant signature covers. */
export function signingString(method: string, pathWithQuery: string, body: string | Uint8Array, timestamp: string): string {
  return `${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${createHash('sha256').update(body).digest('hex')}`
}

/** The `x-signature` header: hex HMAC-SHA256 of the signing string with the tenant's API secret. */
export function sign(apiSecret: string, method: string, pathWithQuery: string, body: string | Uint8Array, timestamp: string): string {
  return createHmac('sha256', apiSecret).update(signingString(method, pathWithQuery, body, timestamp)).digest('hex')
}

/** The three headers of a tenant-signed request. `body` must be the exact bytes sent. */
export function signedHeaders(tenant: TenantCredentials, method: string, pathWithQuery: string, body: string | Uint8Array, timestamp: string) {
  return { 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': timestamp, 'x-signature': sign(tenant.apiSecret, method, pathWithQuery, body, timestamp) }
}

export interface SlipwayResponse<T = unknown> {
  status: number
  ok: boolean
  /** parsed JSON, or the text when the answer is not JSON */
  body: T
  headers: Headers
  text: string
}

export interface RequestOptions {
  /** sign with the client's tenant credentials (or these) */
  signed?: boolean | TenantCredentials
  /** a bearer token; `true` uses the session's access token, refreshed when needed */
  token?: string | boolean
  /** Unix seconds to sign with (default: now) */
  timestamp?: number | string
  headers?: Record<string, string>
  /** the body text, sent as is instead of `JSON.stringify(body)` */
  raw?: string
}

export interface Session {
  userId: string
  accessToken: string
  refreshToken: string
  /** ms since the epoch, by the client's clock */
  expiresAt: number
}

export interface ClientOptions {
  /** e.g. `http://localhost:3000` (no trailing slash) */
  baseUrl: string
  tenant?: TenantCredentials
  /** how requests are sent; defaults to the global fetch (tests pass the app's in-process handler) */
  fetch?: (request: Request) => Promise<Response>
  /** the clock for timestamps and token expiry, in ms */
  now?: () => number
}

/** Refresh this long before the access token expires, so a request does not race its expiry. */
const REFRESH_MARGIN_MS = 30_000

export class SlipwayClient {
  session?: Session
  private refreshing?: Promise<SlipwayResponse>

  constructor(private readonly options: ClientOptions) {}

  /** Any call, untyped: JSON in and out, signed and/or with a bearer token as asked. */
  async request<T = any>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<SlipwayResponse<T>> {
    const text = opts.raw ?? (body === undefined ? '' : JSON.stringify(body))
    const headers: Record<string, string> = { ...(text ? { 'content-type': 'application/json' } : {}), ...opts.headers }
    if (opts.token === true) headers.authorization = `Bearer ${await this.accessToken()}`
    else if (opts.token) headers.authorization = `Bearer ${opts.token}`
    if (opts.signed) {
      const tenant = opts.signed === true ? this.options.tenant : opts.signed
      if (!tenant) throw new Error('SlipwayClient: a signed request needs tenant credentials')
      const ts = String(opts.timestamp ?? Math.floor(this.now() / 1000))
      Object.assign(headers, signedHeaders(tenant, method, path, text, ts))
    }
    const request = new Request(this.options.baseUrl + path, { method, headers, body: text || undefined })
    const res = await (this.options.fetch ?? fetch)(request)
    const resText = await res.text()
    let parsed: unknown = resText
    try {
      parsed = resText ? JSON.parse(resText) : undefined
    } catch { /* not JSON: the text */ }
    return { status: res.status, ok: res.ok, body: parsed as T, headers: res.headers, text: resText }
  }

  /** A call as the signed-in user: refreshes the access token when it is about to expire, or once on a 401. */
  async asUser<T = any>(method: string, path: string, body?: unknown, opts: Omit<RequestOptions, 'token'> = {}): Promise<SlipwayResponse<T>> {
    const res = await this.request<T>(method, path, body, { ...opts, token: true })
    if (res.status !== 401 || !this.session) return res
    const refreshed = await this.refresh()
    return refreshed.ok ? this.request<T>(method, path, body, { ...opts, token: true }) : res
  }

  /** `POST /v1/auth/register` (tenant-signed); a 201 starts the session. */
  async register(body: BodyOf<'/v1/auth/register', 'post'>) {
    return this.startSession(await this.request<ResultOf<'/v1/auth/register', 'post'>>('POST', '/v1/auth/register', body, { signed: true }))
  }

  /** `POST /v1/auth/login` (tenant-signed); a 200 starts the session. */
  async login(body: BodyOf<'/v1/auth/login', 'post'>) {
    return this.startSession(await this.request<TokenResponse>('POST', '/v1/auth/login', body, { signed: true }))
  }

  /** `POST /v1/auth/admin/login`: a platform admin's session. */
  async adminLogin(body: BodyOf<'/v1/auth/admin/login', 'post'>) {
    return this.startSession(await this.request<ResultOf<'/v1/auth/admin/login', 'post'>>('POST', '/v1/auth/admin/login', body))
  }

  /**
   * `POST /v1/auth/refresh` with the session's refresh token. Concurrent callers share one
   * refresh: with rotation on, two refreshes of one token count as reuse and end the session.
   */
  refresh(): Promise<SlipwayResponse<ResultOf<'/v1/auth/refresh', 'post'>>> {
    const session = this.session
    if (!session) return Promise.reject(new Error('SlipwayClient: no session to refresh'))
    this.refreshing ??= this.request<ResultOf<'/v1/auth/refresh', 'post'>>('POST', '/v1/auth/refresh', { refreshToken: session.refreshToken })
      .then((res) => {
        if (res.ok) {
          this.session = {
            ...session,
            accessToken: res.body.accessToken,
            refreshToken: res.body.refreshToken ?? session.refreshToken,
            expiresAt: this.now() + res.body.expiresIn * 1000,
          }
        }
        return res
      })
      .finally(() => { this.refreshing = undefined })
    return this.refreshing as Promise<SlipwayResponse<ResultOf<'/v1/auth/refresh', 'post'>>>
  }

  /** `GET /v1/users/{id}` as the signed-in user. */
  getUser(id: string) {
    return this.asUser<ResultOf<'/v1/users/{id}', 'get'>>('GET', `/v1/users/${encodeURIComponent(id)}`)
  }

  /** `POST /v1/admin/tenants/` as a signed-in platform admin; the answer holds the tenant's `apiKey` and `apiSecret`. */
  createTenant(body: BodyOf<'/v1/admin/tenants/', 'post'>) {
    return this.asUser<ResultOf<'/v1/admin/tenants/', 'post'>>('POST', '/v1/admin/tenants/', body)
  }

  private async accessToken(): Promise<string> {
    if (!this.session) throw new Error('SlipwayClient: not signed in (register, login or adminLogin first)')
    if (this.session.expiresAt - REFRESH_MARGIN_MS <= this.now()) await this.refresh()
    return this.session.accessToken
  }

  private startSession<T extends SlipwayResponse<any>>(res: T): T {
    const b = res.body as Partial<TokenResponse> | undefined
    if (res.ok && b?.accessToken && b.refreshToken && b.user && typeof b.expiresIn === 'number') {
      this.session = { userId: b.user.id, accessToken: b.accessToken, refreshToken: b.refreshToken, expiresAt: this.now() + b.expiresIn * 1000 }
    }
    return res
  }

  private now() {
    return (this.options.now ?? Date.now)()
  }
}
