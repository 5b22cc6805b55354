/** Request schemas of the users routes; the service's input types are read from them. */
import { t } from 'elysia'

export const Username = t.String({ minLength: 3, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$', description: '3 to 100 letters, digits, `_` or `-`; unique in the tenant regardless of case' })
export const Email = t.String({ format: 'email', maxLength: 254 })

export const CreateUser = t.Object({
  username: Username,
  password: t.String({ minLength: 8, maxLength: 256 }),
  email: t.Optional(Email),
  role: t.Optional(t.Union([t.Literal('user'), t.Literal('tenantadmin')], { default: 'user' })),
  tenantId: t.Optional(t.String({ maxLength: 64, description: 'required for platform admins; a tenantadmin acts in its own tenant' })),
})
export type CreateUser = typeof CreateUser.static

export const UpdateMe = t.Object({ username: t.Optional(Username), displayName: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 100 }), t.Null()])) })
export type UpdateMe = typeof UpdateMe.static

export const UpdateUser = t.Object({
  email: t.Optional(Email),
  password: t.Optional(t.String({ minLength: 8, maxLength: 256 })),
  currentPassword: t.Optional(t.String({ minLength: 1, maxLength: 256, description: 'required when users change their own password' })),
  tenantId: t.Optional(t.String({ maxLength: 64 })),
})
export type UpdateUser = typeof UpdateUser.static
