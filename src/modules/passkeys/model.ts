/** Request and response schemas of the passkey routes; the service's input types are read from them. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { StepUpOperationSchema } from '../tenants'

const B64u = (description: string, max = 4096) => t.String({ minLength: 1, maxLength: max, pattern: '^[A-Za-z0-9_-]*={0,2}$', description })

/** What `startRegistration()` of @simplewebauthn/browser returns (the WebAuthn Level 3 `toJSON()` of the credential). */
export const RegistrationResponse = t.Object({
  id: B64u('credential id, base64url', 1024),
  rawId: B64u('the same id, base64url', 1024),
  type: t.Literal('public-key'),
  response: t.Object({
    clientDataJSON: B64u('base64url', 8192),
    attestationObject: B64u('base64url', 16384),
    transports: t.Optional(t.Array(t.String({ maxLength: 32 }), { maxItems: 10 })),
    authenticatorData: t.Optional(B64u('base64url', 16384)),
    publicKey: t.Optional(B64u('base64url', 8192)),
    publicKeyAlgorithm: t.Optional(integer({ minimum: -65536, maximum: 65536, description: 'COSE algorithm id' })),
  }),
  clientExtensionResults: t.Optional(t.Record(t.String(), t.Unknown())),
  authenticatorAttachment: t.Optional(t.String({ maxLength: 32 })),
}, { description: 'the browser\'s registration response as @simplewebauthn/browser `startRegistration()` returns it' })

/** What `startAuthentication()` of @simplewebauthn/browser returns. */
export const AuthenticationResponse = t.Object({
  id: B64u('credential id, base64url', 1024),
  rawId: B64u('the same id, base64url', 1024),
  type: t.Literal('public-key'),
  response: t.Object({
    clientDataJSON: B64u('base64url', 8192),
    authenticatorData: B64u('base64url', 8192),
    signature: B64u('base64url, up to 8 KB (post-quantum ML-DSA signatures run to about 6 KB in base64url)', 8192),
    userHandle: t.Optional(t.Union([B64u('base64url', 512), t.Null()])),
  }),
  clientExtensionResults: t.Optional(t.Record(t.String(), t.Unknown())),
  authenticatorAttachment: t.Optional(t.String({ maxLength: 32 })),
}, { description: 'the browser\'s assertion as @simplewebauthn/browser `startAuthentication()` returns it' })

const creationExample = {
  challenge: 'Wm9uZGVyLXJlZ2lzdHJhdGlvbi1jaGFsbGVuZ2U', rp: { id: 'app.example.com', name: 'Acme Wallet' },
  user: { id: 'dXNlci1pZA', name: 'alice', displayName: 'alice' }, pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }],
  timeout: 300000, attestation: 'none', excludeCredentials: [],
  authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
}
const requestExample = { challenge: 'c2lnbi1pbi1jaGFsbGVuZ2U', rpId: 'app.example.com', timeout: 300000, userVerification: 'required', allowCredentials: [] }

export const CreationOptions = t.Record(t.String(), t.Unknown(), {
  title: 'PasskeyCreationOptions',
  description: 'PublicKeyCredentialCreationOptionsJSON: hand it to `startRegistration({ optionsJSON })` of @simplewebauthn/browser',
  examples: [creationExample],
})
export const RequestOptions = t.Record(t.String(), t.Unknown(), {
  title: 'PasskeyRequestOptions',
  description: 'PublicKeyCredentialRequestOptionsJSON: hand it to `startAuthentication({ optionsJSON })` of @simplewebauthn/browser',
  examples: [requestExample],
})

export const PasskeyName = t.String({ minLength: 1, maxLength: 100, description: 'a label the user chooses', examples: ['MacBook Touch ID'] })

export const Passkey = t.Object({
  id: t.String({ description: 'Slipway\'s id of the passkey (UUID)' }),
  credentialId: t.String({ description: 'the authenticator\'s credential id, base64url' }),
  name: t.String(),
  rpId: t.String({ description: 'the relying party the passkey was made for' }),
  transports: t.Array(t.String()),
  deviceType: t.Union([t.Literal('singleDevice'), t.Literal('multiDevice')], { description: '`multiDevice`: a synced passkey' }),
  backedUp: t.Boolean(),
  counter: integer({ description: 'the signature counter as last seen (0 for authenticators that keep none)' }),
  createdAt: t.String({ format: 'date-time' }),
  lastUsedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
}, {
  title: 'Passkey',
  examples: [{
    id: '0b9d4d4e-3c39-4a4c-9a55-2f1c7a0de2b1', credentialId: 'cHJldGVuZC1jcmVkZW50aWFs', name: 'MacBook Touch ID', rpId: 'app.example.com',
    transports: ['internal', 'hybrid'], deviceType: 'multiDevice', backedUp: true, counter: 0, createdAt: '2026-11-28T04:00:00.000Z', lastUsedAt: null,
  }],
})

/** Examples of the browser's JSON (shortened values, in the right alphabet). */
export const REGISTRATION_EXAMPLE = {
  id: 'ImbGcXu9FUfDy-dhoyZO0Q', rawId: 'ImbGcXu9FUfDy-dhoyZO0Q', type: 'public-key' as const,
  response: { clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0', attestationObject: 'o2NmbXRkbm9uZWdhdHRTdG10oA', transports: ['internal', 'hybrid'] },
  clientExtensionResults: {}, authenticatorAttachment: 'platform',
}
export const ASSERTION_EXAMPLE = {
  id: 'ImbGcXu9FUfDy-dhoyZO0Q', rawId: 'ImbGcXu9FUfDy-dhoyZO0Q', type: 'public-key' as const,
  response: {
    clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0', authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAg',
    signature: 'MEUCIQDk0jJ7', userHandle: 'NjNjZGY3ZTctZDNjMy00Y2IzLTk5MmItZTlhZWJkZGY5N2Rl',
  },
  clientExtensionResults: {}, authenticatorAttachment: 'platform',
}

export const RegistrationVerifyBody = t.Object({ response: RegistrationResponse, name: t.Optional(PasskeyName) }, {
  examples: [{ response: REGISTRATION_EXAMPLE, name: 'MacBook Touch ID' }],
})
export type RegistrationVerifyBody = typeof RegistrationVerifyBody.static
export const RenameBody = t.Object({ name: PasskeyName }, { examples: [{ name: 'Work laptop' }] })
export const PasskeyId = t.Object({ id: t.String({ maxLength: 64, description: 'passkey id (UUID)' }) })

export const SignInOptionsBody = t.Object({
  username: t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'omitted: a discoverable sign-in (the browser offers the passkeys it holds for the relying party)' })),
}, { examples: [{}] })
export const SignInVerifyBody = t.Object({ response: AuthenticationResponse }, { examples: [{ response: ASSERTION_EXAMPLE }] })
export type SignInVerifyBody = typeof SignInVerifyBody.static

export const ApprovalOptionsBody = t.Object({
  operation: StepUpOperationSchema,
  method: t.Union([t.Literal('POST'), t.Literal('PUT'), t.Literal('PATCH'), t.Literal('DELETE')], { description: 'the method of the request to approve' }),
  path: t.String({ minLength: 1, maxLength: 512, pattern: '^/v1/', description: 'its path, without query: `/v1/wallets/export-key`' }),
  bodyHash: t.String({
    pattern: '^[0-9a-f]{64}$',
    description: prose`
      SHA-256 in lower-case hex of the exact bytes of the request body that will be sent (of the
      empty string for a request without a body)`,
  }),
}, {
  examples: [{ operation: 'key_export', method: 'POST', path: '/v1/wallets/export-key', bodyHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }],
})
export type ApprovalOptionsBody = typeof ApprovalOptionsBody.static
export const ApprovalVerifyBody = t.Object({ response: AuthenticationResponse }, { examples: [{ response: ASSERTION_EXAMPLE }] })
export const Approval = t.Object({
  approval: t.String({ description: 'send it in the `Passkey-Approval` header of the approved request; single use' }),
  operation: StepUpOperationSchema,
  expiresAt: t.String({ format: 'date-time' }),
  expiresIn: integer({ description: 'seconds' }),
}, { title: 'PasskeyApproval', examples: [{ approval: 'q0B7m2n...', operation: 'key_export', expiresAt: '2026-11-28T04:02:00.000Z', expiresIn: 120 }] })
