import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { readSettings } from './settings'

export function tenantPublicRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/tenant', detail: { tags: ['Tenants'] } })
    .use(security(deps))
    .get('/public', ({ tenant }) => {
      const s = readSettings(tenant.settings, tenant.name, deps.config.publicBaseUrl)
      return {
        id: tenant.id,
        name: tenant.name,
        walletMode: s.walletMode,
        passwordResetEnabled: s.passwordReset.enabled,
        signInProviders: [...(s.social.googleClientIds.length ? ['google'] : []), ...(s.social.appleClientIds.length ? ['apple'] : [])],
      }
    }, {
      tenantSigned: true,
      response: {
        200: t.Object({
          id: t.String(), name: t.String(), walletMode: t.String(), passwordResetEnabled: t.Boolean(),
          signInProviders: t.Array(t.String(), { description: 'identity providers configured for the tenant' }),
        }, { title: 'TenantPublic' }),
        ...errorResponses('standard', 401, 404),
      },
      detail: { operationId: 'getTenantPublic', summary: 'Public branding and sign-in options of the signing tenant' },
    })
}
