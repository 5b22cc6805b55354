/** Factories for the records most tests need: an admin token, tenants, users. */
import { expect } from 'bun:test'
import { ADMIN, type TestApp } from './app'
import { Api, type TenantCredentials } from './client'

let counter = 0
export const unique = (prefix: string) => `${prefix}_${process.pid}_${++counter}`

export interface Tenant extends TenantCredentials {
  id: string
  name: string
}

export interface SignedInUser {
  id: string
  username: string
  email: string
  password: string
  accessToken: string
  refreshToken: string
}

export class Factory {
  readonly api: Api
  private adminTokenCache?: { token: string; at: number }
  constructor(readonly t: TestApp, api?: Api) {
    this.api = api ?? new Api(t, () => t.clock.now())
  }

  async adminToken(): Promise<string> {
    // reused while it is fresh per the app's clock (tests move the clock)
    const now = this.t.clock.now()
    if (this.adminTokenCache && now - this.adminTokenCache.at < 600_000 && now >= this.adminTokenCache.at) return this.adminTokenCache.token
    const res = await this.api.post('/v1/auth/admin/login', ADMIN)
    expect(res.status).toBe(200)
    this.adminTokenCache = { token: res.body.accessToken as string, at: now }
    return this.adminTokenCache.token
  }

  async tenant(settings: Record<string, unknown> = {}): Promise<Tenant> {
    const res = await this.api.post('/v1/admin/tenants', { name: unique('tenant'), settings }, { token: await this.adminToken() })
    expect(res.status).toBe(201)
    return { id: res.body.id, name: res.body.name, apiKey: res.body.apiKey, apiSecret: res.body.apiSecret }
  }

  async user(tenant: Tenant, over: Partial<{ username: string; email: string; password: string }> = {}): Promise<SignedInUser> {
    const username = over.username ?? unique('user')
    const email = over.email ?? `${username.toLowerCase()}@example.com`
    const password = over.password ?? 'Passw0rd-long'
    const res = await this.api.post('/v1/auth/register', { username, email, password }, { signedBy: tenant })
    expect(res.status).toBe(201)
    return { id: res.body.user.id, username, email, password, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken }
  }

  /** A tenantadmin of `tenant`, created by the platform admin and signed in. */
  async tenantAdmin(tenant: Tenant): Promise<SignedInUser> {
    const username = unique('tadmin')
    const password = 'Passw0rd-admin'
    const created = await this.api.post('/v1/users/', { username, password, role: 'tenantadmin', tenantId: tenant.id }, { token: await this.adminToken() })
    expect(created.status).toBe(201)
    const login = await this.api.post('/v1/auth/login', { username, password }, { signedBy: tenant })
    expect(login.status).toBe(200)
    return { id: created.body.id, username, email: '', password, accessToken: login.body.accessToken, refreshToken: login.body.refreshToken }
  }
}
