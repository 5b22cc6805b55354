import { Elysia, t } from 'elysia'
import { integer } from '../../http/integer'
import type { SessionRevoker, StepUpCheck, WalletOwnerLookup } from '../../context'
import type { Deps } from '../../deps'
import { andThen } from '../../lib/maybe'
import { prose } from '../../http/prose'
import { errorResponses, LimitOffsetQuery, Ok, OffsetPagination, page } from '../../http/schemas'
import { security } from '../../http/security'
import { stepUpGuard, type GuardedBy } from '../../http/step-up'
import { CreateUser, UpdateMe, UpdateUser } from './model'
import * as usersService from './service'
import { UserProfile } from './view'

const UserId = t.Object({ id: t.String({ maxLength: 64, description: 'user id (UUID)' }) })
const TenantQuery = t.Object({ tenantId: t.Optional(t.String({ maxLength: 64, description: 'platform admins: the tenant to act in' })) })
const Paging = LimitOffsetQuery.properties
/**
 * Read answers are built field by field by `userView`, so their schemas are not re-checked at
 * run time (Elysia's compiled check with formats cost about 15% of a profile read); in a list, fields
 * the schema does not name are still stripped, and the tests assert the shapes. The single read
 * (`GET /:id`) answers a Response of `userView`, which names exactly the schema's fields, so
 * Elysia's copy of them is skipped (tests/platform/users.test.ts compares the bytes).
 */
const UserList = t.NoValidate(t.Object({ data: t.Array(UserProfile), pagination: OffsetPagination }))
const UserRead = t.NoValidate(t.Composite([UserProfile]))
/** A user update is an email change, a sign-in method change (the password), both or neither: each may need a passkey approval. */
const updateGuard = (body: typeof UpdateUser.static): GuardedBy => ({
  operations: [...(body.email === undefined ? [] : ['email_change' as const]), ...(body.password === undefined ? [] : ['sign_in_method' as const])],
})
const QrCode = t.String({ description: 'data URL of a PNG (base64) encoding `deepLink`' })

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  createUser: prose`
    Errors are the envelope with \`detail\` (the message in one line); a taken username, or an email that an active account of the tenant
    already has (without regard to case), answers 409. The database holds one active account per
    email and tenant, so of two creations racing for one email one answers 409.`,
  searchUsers: 'Any signed-in user; answers only id, username and display name, so a payer can find a payee.',
  setFcmToken: prose`
    One token per user: a new one replaces the last (the device the user signed in on last gets the
    pushes). One user per token: a token another user holds, in this tenant or another, is moved to
    the caller in the same transaction, and that user gets no more pushes on it. \`locale\` sets the
    language the inbox (\`GET /v1/notifications/inbox\`) and the pushes are written in; a device
    sends its language with its token. A token FCM reports unregistered is removed by Slipway
    (docs/notifications.md).`,
  updateUser: prose`
    Changing a password rejects every refresh token issued before it. Users changing their own
    password must send \`currentPassword\` (422 when wrong). An email that another active account of
    the tenant has answers 409 (one active account per email and tenant, held by the database). With
    \`email_change\` (an email) or \`sign_in_method\` (a password) in the tenant's
    \`passkeys.stepUp.operations\`, a caller who has a passkey sends an approval for this body in
    \`Passkey-Approval\` (403 \`PASSKEY_APPROVAL_REQUIRED\` without it).`,
  deleteUser: prose`
    The user can no longer sign in or refresh, and its refresh tokens are revoked. The username
    stays reserved.`,
}

/**
 * `walletOwners` lets operators find users by wallet address or id (the wallets module's);
 * `revokeSessions` ends a deleted user's sessions (the auth module's); `stepUp` is the passkeys
 * module's approval check (email and password changes); all wired in src/services.ts.
 */
export function userRoutes(deps: Deps, walletOwners: WalletOwnerLookup, revokeSessions: SessionRevoker, stepUp: StepUpCheck) {
  return new Elysia({ prefix: '/v1/users', detail: { tags: ['Users'] } })
    .use(security(deps))
    .use(stepUpGuard(deps, stepUp))
    .post('/', async ({ body, ctx, set }) => {
      const user = await usersService.createUser(ctx, body)
      set.status = 201
      return user
    }, {
      auth: 'operator',
      errorStyle: 'detail',
      body: CreateUser,
      response: { 201: t.Composite([UserProfile, t.Object({ qrCode: QrCode })]), ...errorResponses('detail', 400, 401, 403, 404, 409) },
      detail: { operationId: 'createUser', summary: 'Create a user (admin or tenantadmin)', description: descriptions.createUser },
    })
    .get('/', async ({ query, ctx }) => {
      const limit = query.limit ?? 50
      const offset = query.offset ?? 0
      const { rows, total } = await usersService.listUsers(ctx, { tenantId: query.tenantId, limit, offset })
      return page(rows, total, limit, offset)
    }, {
      auth: 'operator',
      query: t.Object({ ...TenantQuery.properties, ...Paging }),
      response: { 200: UserList, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'listUsers', summary: 'List the tenant\'s users (operators)', description: 'Deleted users are not listed.' },
    })
    .get('/search', ({ query, ctx }) => usersService.searchUsers(ctx, query.username, query.limit ?? 20), {
      auth: 'any',
      query: t.Object({ username: t.String({ minLength: 1, maxLength: 100 }), limit: t.Optional(integer({ minimum: 1, maximum: 50, default: 20 })) }),
      response: { 200: t.Object({ data: t.Array(t.Object({ id: t.String(), username: t.String(), displayName: t.Union([t.String(), t.Null()]) })) }), ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'searchUsers', summary: 'Find users of one\'s tenant by username prefix', description: descriptions.searchUsers },
    })
    .get('/advanced-search', async ({ query, ctx }) => {
      const limit = query.limit ?? 50
      const offset = query.offset ?? 0
      const { rows, total } = await usersService.advancedSearch(ctx, { q: query.q, tenantId: query.tenantId, limit, offset }, walletOwners)
      return page(rows, total, limit, offset)
    }, {
      auth: 'operator',
      query: t.Object({ q: t.String({ minLength: 1, maxLength: 128, description: 'username prefix, user id, wallet address or wallet id' }), ...TenantQuery.properties, ...Paging }),
      response: { 200: UserList, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'advancedSearchUsers', summary: 'Find users by username, user id, wallet address or wallet id (operators)' },
    })
    .patch('/me', ({ body, ctx }) => usersService.updateMe(ctx, body), {
      auth: 'any',
      body: UpdateMe,
      response: { 200: UserProfile, ...errorResponses('standard', 400, 401, 409) },
      detail: { operationId: 'updateMe', summary: 'Change one\'s username and/or display name' },
    })
    .patch('/me/fcm-token', ({ body, ctx }) => usersService.setFcmToken(ctx, body.token, body.locale), {
      auth: 'any',
      body: t.Object({
        token: t.Union([t.String({ minLength: 1, maxLength: 4096 }), t.Null()], { description: 'FCM device token; `null` removes it' }),
        locale: t.Optional(t.Union([t.Literal('en'), t.Literal('it')], { description: 'language of the notifications (inbox and pushes): `en` or `it`; omitted: kept as it is (`en` until set)' })),
      }),
      response: { 200: Ok, ...errorResponses('standard', 400, 401) },
      detail: {
        operationId: 'setFcmToken',
        summary: 'Set the push notification device token (and the notifications\' language)',
        description: descriptions.setFcmToken,
      },
    })
    // answered as a Response: Elysia would only copy `userView`'s fields (its response `Clean`), the bytes are the same
    .get('/:id', ({ params, query, ctx }) => andThen(usersService.getUser(ctx, params.id, query.tenantId), (view) => Response.json(view)), {
      auth: 'any',
      params: UserId,
      query: TenantQuery,
      response: { 200: UserRead, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'getUser', summary: 'Read a user', description: 'A user reads itself; an operator reads its tenant\'s users. Anyone else\'s id answers 404.' },
    })
    .put('/:id', ({ params, body, ctx }) => usersService.updateUser(ctx, params.id, body), {
      auth: 'any',
      passkeyApproval: updateGuard,
      params: UserId,
      body: UpdateUser,
      response: { 200: UserProfile, ...errorResponses('standard', 400, 401, 403, 404, 409, 422) },
      detail: { operationId: 'updateUser', summary: 'Change a user\'s email or password (at least one)', description: descriptions.updateUser },
    })
    .delete('/:id', async ({ params, query, ctx, set }) => {
      await usersService.deleteUser(ctx, params.id, query.tenantId, revokeSessions)
      set.status = 204
    }, {
      auth: 'operator',
      params: UserId,
      query: TenantQuery,
      response: { 204: t.Void({ description: 'Deleted' }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'deleteUser', summary: 'Soft-delete a user (operators)', description: descriptions.deleteUser },
    })
    .get('/:id/qr-code', ({ params, query, ctx }) => usersService.userQrCode(ctx, params.id, query.tenantId), {
      auth: 'any',
      params: UserId,
      query: TenantQuery,
      response: {
        200: t.Object({ userId: t.String(), deepLink: t.String({ description: '`{PUBLIC_BASE_URL}/send?to=<userId>&username=<username>`' }), qrCode: QrCode }),
        ...errorResponses('standard', 401, 404),
      },
      detail: { operationId: 'getUserQrCode', summary: 'QR code for receiving payments', description: 'Encodes a deep link that pre-fills a send form with this user as the payee.' },
    })
}
