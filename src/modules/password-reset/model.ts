/** Request schemas of password reset; the service's input types are read from them. */
import { t } from 'elysia'
import { Email } from '../users'

export const Locale = t.Union([t.Literal('en'), t.Literal('it')], { description: '`en` (default) or `it`: the language of the emails' })
export const ResetToken = t.String({ minLength: 1, maxLength: 512, description: 'the token from the emailed link' })

export const ForgotPassword = t.Object({ email: Email, locale: t.Optional(Locale) })
export type ForgotPassword = typeof ForgotPassword.static

export const ResetPassword = t.Object({ token: ResetToken, newPassword: t.String({ minLength: 1, maxLength: 256 }), locale: t.Optional(Locale) })
export type ResetPassword = typeof ResetPassword.static

export const AdminSendReset = t.Object({
  userId: t.String({ minLength: 1, maxLength: 64 }),
  tenantId: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'required for platform admins; a tenantadmin may only name its own tenant' })),
  locale: t.Optional(Locale),
})
export type AdminSendReset = typeof AdminSendReset.static
