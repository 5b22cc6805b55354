/** Request and response schemas of the tenants routes; the service's input types are read from them. */
import { t } from 'elysia'
import { TenantSettingsPatch, TenantSettingsView } from './settings'

export const TenantId = t.Object({ id: t.String({ maxLength: 64, description: 'tenant id (UUID)' }) })

export const Tenant = t.Object({
  id: t.String({ format: 'uuid' }),
  name: t.String(),
  status: t.Union([t.Literal('active'), t.Literal('disabled')]),
  apiKey: t.String({ description: 'public key sent as `x-tenant-api-key`' }),
  settings: TenantSettingsView,
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Tenant' })

export const TenantWithSecret = t.Composite([Tenant, t.Object({ apiSecret: t.String({
  description: 'HMAC key for tenant signatures; shown here and by GET .../api-secret',
}) })], { title: 'CreatedTenant' })
export const ApiCredentials = t.Object({ apiKey: t.String(), apiSecret: t.String() }, { title: 'TenantApiCredentials' })

export const Name = t.String({ minLength: 1, maxLength: 100 })

export const ActivityEntry = t.Object({
  id: t.String(), actorId: t.Union([t.String(), t.Null()]), actorRole: t.Union([t.String(), t.Null()]), action: t.String(),
  targetType: t.Union([t.String(), t.Null()]), targetId: t.Union([t.String(), t.Null()]), details: t.Union([t.Record(t.String(), t.Any()), t.Null()]),
  requestId: t.Union([t.String(), t.Null()]), createdAt: t.String({ format: 'date-time' }),
})

export const UpdateTenant = t.Composite([
  t.Object({ name: t.Optional(Name), status: t.Optional(t.Union([t.Literal('active'), t.Literal('disabled')], { description: 'platform admins only' })), settings: t.Optional(TenantSettingsPatch) }),
  TenantSettingsPatch,
], { additionalProperties: false })

export type UpdateTenant = typeof UpdateTenant.static

export const CreateTenant = t.Object({ name: Name, settings: t.Optional(TenantSettingsPatch) })
export type CreateTenant = typeof CreateTenant.static
