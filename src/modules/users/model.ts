/** Request schemas of the users routes; the service's input types are read from them. */
import { t } from 'elysia'
import { Email, Username } from '../auth/model'

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
