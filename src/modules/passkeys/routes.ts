/** The passkey routes: a user's passkeys, sign-in with one (tenant-signed), and step-up approvals. */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses, Ok } from '../../http/schemas'
import { security } from '../../http/security'
import { TokenResponse } from '../auth'
import { stepUpGuard } from '../../http/step-up'
import { hostedRoutes } from './hosted-routes'
import * as M from './model'
import * as service from './service'
import { signIn, signInOptions } from './signin'
import { approvalOptions, approve, requireApproval } from './step-up'

/** WebAuthn's options JSON, answered as the open record its schema documents. */
const json = (options: object) => options as Record<string, unknown>

// the password sign-in's limit (POST /v1/auth/login), per client IP: options and verification share one bucket
const signInLimit = { max: 20, windowSeconds: 60, name: 'passkey-signin' }

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  registrationOptions: prose`
    Creation options for a new passkey of the caller, on the tenant's relying party
    (\`passkeys.rpId\`): a discoverable credential with user verification. The challenge is stored,
    single use, valid 5 minutes. 400 \`PASSKEYS_NOT_CONFIGURED\` when the tenant has no relying party
    or origins.`,
  registrationVerify: prose`
    The browser's response to the creation options. Refused with 400 and a code:
    \`PASSKEY_CHALLENGE_UNKNOWN\`, \`PASSKEY_CHALLENGE_EXPIRED\`, \`PASSKEY_ASSERTION_REPLAYED\` (the
    challenge is spent), \`PASSKEY_ORIGIN_NOT_ALLOWED\` (an origin not in \`passkeys.origins\`),
    \`PASSKEY_RP_MISMATCH\`, \`PASSKEY_VERIFICATION_FAILED\`; 409 \`PASSKEY_ALREADY_REGISTERED\`.
    Adding a passkey adds a sign-in method: with \`sign_in_method\` in the tenant's
    \`passkeys.stepUp.operations\`, a user who has a passkey needs an approval.`,
  listPasskeys: 'The caller\'s passkeys, oldest first.',
  renamePasskey: 'Another user\'s passkey id answers 404.',
  deletePasskey: prose`
    409 \`PASSKEY_LAST_SIGN_IN_METHOD\` when it is the account's last way to sign in (no other passkey,
    no password, no Google or Apple account). Removing a sign-in method: with \`sign_in_method\` in the
    tenant's \`passkeys.stepUp.operations\`, it needs an approval. Another user's id answers 404.`,
  signInOptions: prose`
    Request options for a passkey sign-in. With \`username\`, the options list that user's passkeys;
    without, the browser offers any passkey it holds for the relying party (discoverable). An
    unknown username gets options too (with no passkey listed), so the answer does not tell whether
    an account exists. The challenge is single use, valid 5 minutes. 20 per minute per client IP,
    shared with the verification.`,
  signInVerify: prose`
    The assertion becomes a session exactly as the password sign-in's: the same token response.
    Refused with 401 and a code: \`PASSKEY_CHALLENGE_UNKNOWN\`, \`PASSKEY_CHALLENGE_EXPIRED\`,
    \`PASSKEY_ASSERTION_REPLAYED\`, \`PASSKEY_ORIGIN_NOT_ALLOWED\`, \`PASSKEY_RP_MISMATCH\` (made for
    another relying party, such as another tenant's), \`PASSKEY_CREDENTIAL_UNKNOWN\` (not registered,
    or deleted), \`PASSKEY_COUNTER_REGRESSED\` (a cloned authenticator), \`PASSKEY_VERIFICATION_FAILED\`.`,
  approvalOptions: prose`
    Request options for approving one request: name the operation, the method, the path and the
    SHA-256 (hex) of the exact body bytes to be sent. Any of the caller's passkeys may answer. 400
    \`PASSKEY_CREDENTIAL_UNKNOWN\` when the caller has none.`,
  approvalVerify: prose`
    The assertion over the approval options; answers the approval, single use, valid 2 minutes, for
    that request only: send it as the \`Passkey-Approval\` header. Refusals as for sign-in, with 400.`,
}

export function passkeyRoutes(deps: Deps) {
  const mine = new Elysia({ prefix: '/v1/passkeys', detail: { tags: ['Passkeys'] } })
    .use(security(deps))
    .use(stepUpGuard(deps, requireApproval))
    .post('/registration/options', async ({ ctx }) => json(await service.registrationOptions(ctx)), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      response: { 200: M.CreationOptions, ...errorResponses('standard', 400, 401, 403, 429) },
      detail: { operationId: 'passkeyRegistrationOptions', summary: 'Options to register a passkey', description: descriptions.registrationOptions },
    })
    .post('/registration/verify', async ({ body, ctx, set }) => {
      const out = await service.verifyRegistrationOf(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      passkeyApproval: 'sign_in_method',
      rateLimit: { max: 20, windowSeconds: 60 },
      body: M.RegistrationVerifyBody,
      response: { 201: M.Passkey, ...errorResponses('standard', 400, 401, 403, 409, 429) },
      detail: { operationId: 'passkeyRegistrationVerify', summary: 'Register a passkey from the browser\'s response', description: descriptions.registrationVerify },
    })
    .get('/', ({ ctx }) => service.listPasskeys(ctx), {
      auth: 'any',
      response: { 200: t.Object({ data: t.Array(M.Passkey) }, { title: 'PasskeyList' }), ...errorResponses('standard', 401, 403) },
      detail: { operationId: 'listPasskeys', summary: 'The caller\'s passkeys', description: descriptions.listPasskeys },
    })
    .patch('/:id', ({ params, body, ctx }) => service.renamePasskey(ctx, params.id, body.name), {
      auth: 'any',
      params: M.PasskeyId,
      body: M.RenameBody,
      response: { 200: M.Passkey, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'renamePasskey', summary: 'Rename a passkey', description: descriptions.renamePasskey },
    })
    .delete('/:id', ({ params, ctx }) => service.deletePasskey(ctx, params.id), {
      auth: 'any',
      passkeyApproval: 'sign_in_method',
      params: M.PasskeyId,
      response: { 200: Ok, ...errorResponses('standard', 400, 401, 403, 404, 409) },
      detail: { operationId: 'deletePasskey', summary: 'Delete a passkey', description: descriptions.deletePasskey },
    })
    .post('/approvals/options', async ({ body, ctx }) => json(await approvalOptions(ctx, body)), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      body: M.ApprovalOptionsBody,
      response: { 200: M.RequestOptions, ...errorResponses('standard', 400, 401, 403, 429) },
      detail: { operationId: 'passkeyApprovalOptions', summary: 'Options to approve one request with a passkey', description: descriptions.approvalOptions },
    })
    .post('/approvals/verify', ({ body, ctx }) => approve(ctx, body), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      body: M.ApprovalVerifyBody,
      response: { 200: M.Approval, ...errorResponses('standard', 400, 401, 403, 429) },
      detail: { operationId: 'passkeyApprovalVerify', summary: 'Get a single-use approval from a passkey\'s assertion', description: descriptions.approvalVerify },
    })
  const signInRoutes = new Elysia({ prefix: '/v1/auth/passkey', detail: { tags: ['Authentication'] } })
    .use(security(deps))
    .post('/options', async ({ body, tenant }) => json(await signInOptions(deps, tenant, body.username)), {
      rateLimit: signInLimit,
      tenantSigned: true,
      body: M.SignInOptionsBody,
      response: { 200: M.RequestOptions, ...errorResponses('standard', 400, 401, 404, 429) },
      detail: { operationId: 'passkeySignInOptions', summary: 'Options to sign in with a passkey (tenant-signed)', description: descriptions.signInOptions },
    })
    .post('/verify', ({ body, tenant }) => signIn(deps, tenant, body), {
      rateLimit: signInLimit,
      tenantSigned: true,
      body: M.SignInVerifyBody,
      response: { 200: TokenResponse, ...errorResponses('standard', 400, 401, 404, 429) },
      detail: { operationId: 'passkeySignIn', summary: 'Sign in with a passkey (tenant-signed)', description: descriptions.signInVerify },
    })
  return new Elysia().use(mine).use(signInRoutes).use(hostedRoutes(deps))
}
