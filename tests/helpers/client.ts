/**
 * A small HTTP client for tests: JSON in and out, bearer tokens and tenant signatures,
 * either in-process (`app.handle`) or over a real server.
 */
import { createHash, createHmac } from 'node:crypto'
import type { TestApp } from './app'

export interface TenantCredentials {
  apiKey: string
  apiSecret: string
}

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
  const bodyHash = createHash('sha256').update(body).digest('hex')
  return createHmac('sha256', creds.apiSecret).update(`${method.toUpperCase()}\n${pathWithQuery}\n${timestamp}\n${bodyHash}`).digest('hex')
}

export function signedHeaders(creds: TenantCredentials, method: string, pathWithQuery: string, body: string, timestamp: string) {
  return { 'x-tenant-api-key': creds.apiKey, 'x-timestamp': timestamp, 'x-signature': sign(creds, method, pathWithQuery, body, timestamp) }
}

export class Api {
  constructor(private readonly target: TestApp | string, private readonly nowMs: () => number = () => Date.now()) {}

  async call<T = any>(method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<ApiResponse<T>> {
    const text = opts.raw ?? (body === undefined ? '' : JSON.stringify(body))
    const headers: Record<string, string> = { ...(text ? { 'content-type': 'application/json' } : {}), ...opts.headers }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`
    if (opts.signedBy) {
      const ts = String(opts.timestamp ?? Math.floor(this.nowMs() / 1000))
      Object.assign(headers, signedHeaders(opts.signedBy, method, path, text, ts))
    }
    const base = typeof this.target === 'string' ? this.target : 'http://slipway.test'
    const req = new Request(base + path, { method, headers, body: text || undefined })
    const res = typeof this.target === 'string' ? await fetch(req) : await this.target.handle(req)
    const resText = await res.text()
    let parsed: any = resText
    try {
      parsed = resText ? JSON.parse(resText) : undefined
    } catch { /* not JSON */ }
    return { status: res.status, body: parsed as T, headers: res.headers, text: resText }
  }

  get<T = any>(path: string, opts?: CallOptions) { return this.call<T>('GET', path, undefined, opts) }
  post<T = any>(path: string, body?: unknown, opts?: CallOptions) { return this.call<T>('POST', path, body, opts) }
  put<T = any>(path: string, body?: unknown, opts?: CallOptions) { return this.call<T>('PUT', path, body, opts) }
  patch<T = any>(path: string, body?: unknown, opts?: CallOptions) { return this.call<T>('PATCH', path, body, opts) }
  delete<T = any>(path: string, opts?: CallOptions) { return this.call<T>('DELETE', path, undefined, opts) }
}
