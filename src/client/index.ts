/**
 * Slipway's client for a tenant's own backend (Node 20+, Bun, Deno), typed on every route.
 *
 * `slipway.api` is an openapi-fetch client over the types openapi-typescript generates from
 * the OpenAPI document (`api-types.ts`, `npm run client:types`): a path, a path or query
 * parameter, or a body field that the document does not have fails `tsc`, and answers come
 * back as `{ data, error, response }` typed per status. Two middlewares add the credentials
 * each operation's `security` asks for (`operationCredentials`, generated with the types):
 * the tenant signature, and the signed-in user's access token, refreshed before it expires
 * or once after a 401. The API secret must never reach a browser or a mobile app: sign on
 * your server. Import it as the package `slipway/client` (docs/client.md), or copy this folder:
 *
 *   const slipway = new SlipwayClient({ baseUrl: 'http://localhost:3000', tenant: { apiKey, apiSecret } })
 *   await slipway.register({ username: 'alice', email: 'alice@example.com', password: 'Str0ng-Passw0rd' })
 *   const { data: me, error } = await slipway.api.GET('/v1/users/{id}', { params: { path: { id: slipway.session!.userId } } })
 */
import createClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch'
import type { operations, paths } from './api-types'
import { credentialsOf, SignatureClock, signedHeaders, tenantSignature, type TenantCredentials } from './signing'
import { waitingFetch } from './transport'

export type { components, operations, paths } from './api-types'
export { operationCredentials } from './api-types'
export type { Middleware } from 'openapi-fetch'
export { orThrow, SlipwayError, SlipwayUnreachableError, waitingFetch } from './transport'
export { sign, signedHeaders, signingString, signRequest, SignatureClock, tenantSignature, type TenantCredentials } from './signing'

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch'
type Init<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>
/**
 * openapi-fetch's own call signature, with the options typed from the path alone. Its own
 * signature infers the options as a type parameter, and an inferred object literal escapes
 * TypeScript's excess-property check: a misspelt optional body field next to every required
 * one compiles (openapi-ts/openapi-typescript issue 1769, open). Typed from the path, the
 * literal is checked against the document's body and parameters field by field.
 */
type Call<M extends Method> = <P extends ClientPathsWithMethod<Client<paths>, M>>(
  url: P,
  ...init: {} extends Init<P, M> ? [init?: Init<P, M>] : [init: Init<P, M>]
) => Promise<FetchResponse<paths[P][M] & Record<string | number, any>, {}, 'application/json'>>

/** The client of `slipway.api`: `GET`, `POST`, `PUT`, `PATCH`, `DELETE` on every documented path, and `use`/`eject` for middleware. */
export interface SlipwayApi extends Pick<Client<paths, 'application/json'>, 'use' | 'eject'> {
  GET: Call<'get'>
  POST: Call<'post'>
  PUT: Call<'put'>
  PATCH: Call<'patch'>
  DELETE: Call<'delete'>
}

export type TokenResponse = operations['login']['responses'][200]['content']['application/json']
type JsonBody<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never

export interface SlipwayResponse<T = unknown> {
  status: number
  ok: boolean
  /** parsed JSON, or the text when the answer is not JSON */
  body: T
  headers: Headers
  text: string
}

export interface UntypedOptions {
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
  /**
   * How long a call waits for a server that refuses connections (stopped or restarting), in
   * ms, trying again with a growing pause; then it throws `SlipwayUnreachableError`. Default
   * 30 s; 0 throws at once.
   */
  waitForServerMs?: number
  /** told when a call starts waiting for the server (e.g. print one line) */
  onWait?: (info: { url: string; waitForServerMs: number }) => void
}

/**
 * One clock for every client of the process that brings no clock of its own: two clients with
 * the same credentials (a script's user and its admin) signing the same request in the same
 * second then get different seconds, instead of one being refused as a replay and signed again.
 */
const processClock = new SignatureClock()

/** Refresh this long before the access token expires, so a request does not race its expiry. */
const REFRESH_MARGIN_MS = 30_000

/**
 * How it fails (one rule for every method): an answer never throws. `api.*`, `register`, `login`,
 * `adminLogin`, `refresh`, `getUser` and `createTenant` return openapi-fetch's `{ data, error,
 * response }`: `data` on a 2xx, else `error`, the error envelope typed for that status. `orThrow`
 * turns one into its data or a thrown `SlipwayError` (one line: call, status, code, message).
 * Thrown by the client itself: `SlipwayUnreachableError` when no answer came (after
 * `waitForServerMs` of refused connections), and an `Error` for a usage mistake (`refresh` or
 * `accessToken` without a session, a signed `untyped` call without credentials).
 */
export class SlipwayClient {
  /**
   * Every route, typed from the OpenAPI document, e.g.
   * `slipway.api.POST('/v1/ramp/bank/payin/initiate', { body: { walletId } })`. Tenant-signed
   * operations are signed (when the client has tenant credentials) and bearer operations carry
   * the session's access token (when signed in), unless the call passes its own header.
   */
  readonly api: SlipwayApi
  session?: Session
  private refreshing?: ReturnType<SlipwayClient['refreshOnce']>
  private readonly signatureClock: SignatureClock
  /** the transport: the given fetch (or the global one), waiting for a restarting server */
  private readonly send: (request: Request) => Promise<Response>

  constructor(private readonly options: ClientOptions) {
    this.signatureClock = options.now ? new SignatureClock(() => this.now()) : processClock
    const base = options.fetch ?? ((request: Request) => fetch(request))
    this.send = waitingFetch(base, { waitForServerMs: options.waitForServerMs ?? 30_000, onWait: options.onWait })
    this.api = createClient<paths, 'application/json'>({ baseUrl: options.baseUrl, fetch: this.send }) as SlipwayApi
    if (options.tenant) this.api.use(tenantSignature(options.tenant, this.signatureClock))
    this.api.use(this.sessionTokens())
  }

  /** `POST /v1/auth/register` (tenant-signed); a 201 starts the session. */
  async register(body: JsonBody<'register'>) {
    return this.startSession(await this.api.POST('/v1/auth/register', { body }))
  }

  /** `POST /v1/auth/login` (tenant-signed); a 200 starts the session. */
  async login(body: JsonBody<'login'>) {
    return this.startSession(await this.api.POST('/v1/auth/login', { body }))
  }

  /** `POST /v1/auth/admin/login`: a platform admin's session. */
  async adminLogin(body: JsonBody<'adminLogin'>) {
    return this.startSession(await this.api.POST('/v1/auth/admin/login', { body }))
  }

  /**
   * `POST /v1/auth/refresh` with the session's refresh token. Concurrent callers share one
   * refresh: with rotation on, two refreshes of one token count as reuse and end the session.
   * Without a session it rejects (a usage mistake: sign in first).
   */
  refresh() {
    if (!this.session) return Promise.reject(new Error('SlipwayClient: no session to refresh (register, login or adminLogin first)'))
    this.refreshing ??= this.refreshOnce(this.session).finally(() => { this.refreshing = undefined })
    return this.refreshing
  }

  /** `GET /v1/users/{id}` as the signed-in user. */
  getUser(id: string) {
    return this.api.GET('/v1/users/{id}', { params: { path: { id } } })
  }

  /** `POST /v1/admin/tenants/` as a signed-in platform admin; the answer holds the tenant's `apiKey` and `apiSecret`. */
  createTenant(body: JsonBody<'createTenant'>) {
    return this.api.POST('/v1/admin/tenants/', { body })
  }

  /** The session's access token, refreshed first when it is about to expire. */
  async accessToken(): Promise<string> {
    if (!this.session) throw new Error('SlipwayClient: not signed in (register, login or adminLogin first)')
    if (this.session.expiresAt - REFRESH_MARGIN_MS <= this.now()) await this.refresh()
    return this.session.accessToken
  }

  /**
   * Any method and path, unchecked by the types: for a deliberately malformed request (the
   * tests' invalid bodies and raw text) or a route newer than `api-types.ts`. Credentials only
   * as asked (`signed`, `token`); prefer `api`, which types the call and adds them itself.
   */
  async untyped<T = any>(method: string, path: string, body?: unknown, opts: UntypedOptions = {}): Promise<SlipwayResponse<T>> {
    const text = opts.raw ?? (body === undefined ? '' : JSON.stringify(body))
    const headers: Record<string, string> = { ...(text ? { 'content-type': 'application/json' } : {}), ...opts.headers }
    if (opts.token === true) headers.authorization = `Bearer ${await this.accessToken()}`
    else if (opts.token) headers.authorization = `Bearer ${opts.token}`
    if (opts.signed) {
      const tenant = opts.signed === true ? this.options.tenant : opts.signed
      if (!tenant) throw new Error('SlipwayClient: a signed request needs tenant credentials')
      const ts = opts.timestamp === undefined ? this.signatureClock.next(method, path, text) : String(opts.timestamp)
      Object.assign(headers, signedHeaders(tenant, method, path, text, ts))
    }
    const request = new Request(this.options.baseUrl + path, { method, headers, body: text || undefined })
    const res = await this.send(request)
    const resText = await res.text()
    let parsed: unknown = resText
    try {
      parsed = resText ? JSON.parse(resText) : undefined
    } catch { /* not JSON: the text */ }
    return { status: res.status, ok: res.ok, body: parsed as T, headers: res.headers, text: resText }
  }

  private async refreshOnce(session: Session) {
    const res = await this.api.POST('/v1/auth/refresh', { body: { refreshToken: session.refreshToken } })
    if (res.data) {
      this.session = {
        ...session,
        accessToken: res.data.accessToken,
        refreshToken: res.data.refreshToken ?? session.refreshToken,
        expiresAt: this.now() + res.data.expiresIn * 1000,
      }
    }
    return res
  }

  /**
   * openapi-fetch middleware: the session's access token on every operation the document
   * marks bearer (unless the call set its own `authorization`), refreshed first when it is
   * about to expire; after a 401 (the server's clock ahead of ours, a token revoked by a
   * refresh elsewhere) the session is refreshed once and the call sent again.
   */
  private sessionTokens(): Middleware {
    // bodies of the calls that may be sent again: a Request's body can be read only once
    const bodies = new Map<string, ArrayBuffer | undefined>()
    return {
      onRequest: async ({ request, schemaPath, id }) => {
        const kind = credentialsOf(request.method, schemaPath)
        if ((kind !== 'bearer' && kind !== 'both') || !this.session || request.headers.has('authorization')) return
        request.headers.set('authorization', `Bearer ${await this.accessToken()}`)
        bodies.set(id, request.body ? await request.clone().arrayBuffer() : undefined)
        return request
      },
      onResponse: async ({ request, response, id, options }) => {
        if (!bodies.has(id)) return
        const body = bodies.get(id)
        bodies.delete(id)
        if (response.status !== 401 || !this.session) return
        const sent = request.headers.get('authorization')
        // a racing call may have refreshed already: send again with its token
        if (sent === `Bearer ${this.session.accessToken}` && !(await this.refresh()).data) return
        const again = new Request(request.url, { method: request.method, headers: request.headers, body })
        again.headers.set('authorization', `Bearer ${this.session.accessToken}`)
        return options.fetch(again)
      },
      onError: ({ id }) => { bodies.delete(id) },
    }
  }

  private startSession<R extends { data?: Partial<TokenResponse> }>(res: R): R {
    const b = res.data
    if (b?.accessToken && b.refreshToken && b.user && typeof b.expiresIn === 'number') {
      this.session = { userId: b.user.id, accessToken: b.accessToken, refreshToken: b.refreshToken, expiresAt: this.now() + b.expiresIn * 1000 }
    }
    return res
  }

  private now() {
    return (this.options.now ?? Date.now)()
  }
}
