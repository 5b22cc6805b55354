/** Schemas of the hosted passkey page's routes. */
import { t } from 'elysia'
import { prose } from '../../http/prose'
import { ASSERTION_EXAMPLE, AuthenticationResponse, PasskeyName, RegistrationResponse } from './model'

const SessionToken = t.String({ minLength: 16, maxLength: 128, description: 'the session token from the page address\'s fragment' })

export const HostedSessionBody = t.Object({
  mode: t.Union([t.Literal('register'), t.Literal('signin')], { description: '`register`: add a passkey to `userId`; `signin`: sign in with any passkey made on the hosted page' }),
  userId: t.Optional(t.String({ maxLength: 64, description: 'required with `register`: the user the tenant\'s backend signed in' })),
  returnUrl: t.String({ maxLength: 2048, pattern: '^https?://', description: 'where the page sends the user back; must start with one of the tenant\'s `passkeys.hostedReturnUrls`' }),
  state: t.Optional(t.String({ maxLength: 512, description: 'returned unchanged as `state` beside `code`' })),
}, { examples: [{ mode: 'signin', returnUrl: 'https://app.example.com/passkey-done', state: 'k2f9x' }] })
export type HostedSessionBody = typeof HostedSessionBody.static

export const HostedSession = t.Object({
  url: t.String({ description: 'send the user\'s browser here (the session token is in the fragment, never sent to a server)' }),
  expiresAt: t.String({ format: 'date-time', description: '15 minutes' }),
}, { title: 'HostedPasskeySession', examples: [{ url: 'https://slipway.example.com/passkeys#session=Q2hv...', expiresAt: '2026-11-28T04:15:00.000Z' }] })

const SESSION_EXAMPLE = 'Q2hvb3NlLWEtc2Vzc2lvbi10b2tlbi1leGFtcGxl'
export const HostedOptionsBody = t.Object({ session: SessionToken }, { examples: [{ session: SESSION_EXAMPLE }] })
export const HostedOptions = t.Object({
  mode: t.Union([t.Literal('register'), t.Literal('signin')]),
  options: t.Record(t.String(), t.Unknown(), { description: 'creation options (register) or request options (signin), WebAuthn JSON' }),
}, { title: 'HostedPasskeyOptions' })

export const HostedVerifyBody = t.Object({
  session: SessionToken,
  response: t.Union([RegistrationResponse, AuthenticationResponse], { description: 'the browser\'s credential, WebAuthn JSON: a registration (register) or an assertion (signin)' }),
  name: t.Optional(PasskeyName),
}, { examples: [{ session: SESSION_EXAMPLE, response: ASSERTION_EXAMPLE }] })
export type HostedVerifyBody = typeof HostedVerifyBody.static
export const HostedVerified = t.Object({
  redirectUrl: t.String({ description: 'the tenant\'s `returnUrl` with `code` (and `state`)' }),
}, { title: 'HostedPasskeyResult', examples: [{ redirectUrl: 'https://app.example.com/passkey-done?code=c2lnbmVk...&state=k2f9x' }] })

export const ExchangeBody = t.Object({
  code: t.String({ minLength: 16, maxLength: 128, description: prose`
    the one-time code the hosted page put on the return address; single use, valid 2 minutes, only
    for the tenant that opened the session` }),
}, { examples: [{ code: 'c2lnbmVkLW9uZS10aW1lLWNvZGUtZXhhbXBsZQ' }] })
