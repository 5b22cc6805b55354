/**
 * The tests' HTTP client: the repository's own signing client (src/client), either
 * in-process (`app.handle`) or over a real server, so every test that signs a request
 * also checks the client a tenant would copy.
 */
import { SlipwayClient, sign as signWith, signedHeaders as headersFor, type TenantCredentials } from '@/client'
import type { TestApp } from './app'

export type { TenantCredentials }

export interface CallOptions {
  token?: string
  signedBy?: TenantCredentials
  /** Unix seconds to sign with (default now per the app clock) */
  timestamp?: number | string
  headers?: Record<string, string>
  /** raw body text, sent as is (for unparsable JSON tests) */
  raw?: string
}

export interface ApiResponse<T = any> {
  status: number
  body: T
  headers: Headers
  text: string
}

export function sign(creds: TenantCredentials, method: string, pathWithQuery: string, body: string, timestamp: string) {
  return signWith(creds.apiSecret, method, pathWithQuery, body, timestamp)
}

export function signedHeaders(creds: TenantCredentials, method: string, pathWithQuery: string, body: string, timestamp: string) {
  return headersFor(creds, method, pathWithQuery, body, timestamp)
}

export class Api {
  readonly client: SlipwayClient

  constructor(target: TestApp | string, nowMs: () => number = () => Date.now()) {
    this.client = typeof target === 'string'
      ? new SlipwayClient({ baseUrl: target, now: nowMs })
      : new SlipwayClient({ baseUrl: 'http://slipway.test', fetch: (r) => target.handle(r), now: nowMs })
  }

  call<T = any>(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<ApiResponse<T>> {
    return this.client.untyped<T>(method, path, body, { token: opts.token, signed: opts.signedBy, timestamp: opts.timestamp, headers: opts.headers, raw: opts.raw })
  }

  get<T = any>(path: string, opts?: CallOptions) { return this.call<T>('GET', path, undefined, opts) }
  post<T = any>(path: string, body?: unknown, opts?: CallOptions) { return this.call<T>('POST', path, body, opts) }
  put<T = any>(path: string, body?: unknown, opts?: CallOptions) { return this.call<T>('PUT', path, body, opts) }
  patch<T = any>(path: string, body?: unknown, opts?: CallOptions) { return this.call<T>('PATCH', path, body, opts) }
  delete<T = any>(path: string, opts?: CallOptions) { return this.call<T>('DELETE', path, undefined, opts) }
}
