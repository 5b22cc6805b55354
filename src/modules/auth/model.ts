/** Request and response schemas of sign-in; the service's input types are read from them. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { Email, UserProfile, Username } from '../users'

export { Email, Username }
export const Password = t.String({ minLength: 8, maxLength: 256, description: 'at least 8 characters with an upper-case letter, a lower-case letter and a digit (the last three checked with 422)' })

/**
 * The sign-in answer is built field by field (`userView`, the wallet module's view), so it is not
 * re-checked at run time, like the users module's reads: the check was 3-4% of a registration's
 * CPU on the JavaScript thread. Fields the schema does not name are still stripped.
 */
export const TokenResponse = t.NoValidate(t.Object({
  accessToken: t.String({ description: 'HS256 JWT with `sub`, `tenantId`, `role`, `iat`, `exp`' }),
  refreshToken: t.String({ description: 'opaque; valid 7 days by default' }),
  expiresIn: integer({ description: 'seconds; 900 by default', examples: [900] }),
  user: UserProfile,
  wallet: t.Optional(t.Record(t.String(), t.Any(), { description: 'only when a wallet was created during registration' })),
  mpcDkg: t.Optional(t.Record(t.String(), t.Any(), {
    description: prose`
      registration on an \`mpc\` tenant with \`wallet: { option: create }\`: the DKG session opened
      for the new wallet (an MpcSession, as \`POST /v1/mpc/wallets/dkg/start\` answers); the device
      joins it as party 0`,
  })),
}, { title: 'TokenResponse' }))

export const RegistrationWallet = t.Object({ option: t.Literal('create'), chain: t.Optional(t.String({ minLength: 1, maxLength: 64 })) }, {
  description: prose`
    \`option: create\` requires \`chain\`; on MPC tenants it creates no wallet but opens the DKG
    session for one (\`mpcDkg\` in the answer)`,
})

export const Register = t.Object({
  username: Username,
  email: Email,
  password: Password,
  wallet: t.Optional(RegistrationWallet),
})
export type Register = typeof Register.static

export const Login = t.Object({ username: t.String({ minLength: 1, maxLength: 100 }), password: t.String({ minLength: 1, maxLength: 256 }) })
export type Login = typeof Login.static

export const Refresh = t.Object({ refreshToken: t.String({ minLength: 1, maxLength: 512 }) })
