/** Request schemas of Google and Apple sign-in; the service's input type is read from them. */
import { t } from 'elysia'

const IdToken = t.String({ minLength: 10, maxLength: 8192, description: 'the ID token (JWT) the provider gave the app' })
const Nonce = t.String({ minLength: 1, maxLength: 512, description: 'the nonce the app sent to the provider; when given, the token\'s `nonce` must match it' })

export const GoogleSignIn = t.Object({ idToken: IdToken, nonce: t.Optional(Nonce) })

export const AppleSignIn = t.Object({
  idToken: IdToken,
  nonce: t.Optional(Nonce),
  firstName: t.Optional(t.String({ maxLength: 100, description: 'Apple gives the name to the app only on the first sign-in; used as the new user\'s display name' })),
  lastName: t.Optional(t.String({ maxLength: 100 })),
})
/** Google's body is Apple's without the name */
export type SocialSignIn = typeof AppleSignIn.static
