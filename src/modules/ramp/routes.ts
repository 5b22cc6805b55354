/**
 * Bank ramp routes, part 1 (`/v1/ramp/bank`): KYC, pay-ins and the partner's inbound webhooks.
 * The environment is chosen by `isTestnet` (query on reads, body on writes): `true` is the
 * sandbox, omitted or `false` production, as on the payout channel form.
 */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { IdempotencyHeaders, idempotency } from '../../http/idempotency'
import { stateOf } from '../../http/request-state'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import * as M from './model'
import * as service from './service'

const ACCESS = 'Bearer; a user of a tenant that uses the bank ramp. 403 when the tenant does not use the bank ramp or the token has no tenant; 503 `RAMP_NOT_CONFIGURED` when it is not connected in that environment (nobody is called); 403 `RAMP_FUNCTION_OFF` (`details.function`, `details.environment`) when the function is switched off.'
const PARTNER = 'Partner failures: 502 `RAMP_AUTHENTICATION_FAILED`; 503 `RAMP_UNAVAILABLE`, `RAMP_TIMEOUT`, `RAMP_UNREACHABLE`, `RAMP_RATE_LIMITED`; the partner\'s own refusals keep their status with `details.code` `RAMP_REQUEST_REFUSED`.'
const IDEMPOTENT = 'Optional `Idempotency-Key` (see Idempotency): every answer carries `idempotency-replayed`.'

export function rampRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/ramp/bank', detail: { tags: ['Bank ramp'] } })
    .use(security(deps))
    .use(idempotency(deps))
    .get('/payin/onboarding-status', ({ query, ctx }) => service.onboardingStatus(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.OnboardingStatusView, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampOnboardingStatus', summary: 'KYC status of the caller', description: `${ACCESS} Read from Slipway's record (kept current by the partner's events); the partner is not called. Function \`kyc\`.` },
    })
    .post('/payin/onboard-session', ({ body, ctx }) => service.onboardSession(ctx, body), {
      auth: 'any',
      idempotent: true,
      headers: IdempotencyHeaders,
      body: M.OnboardSessionBody,
      response: { 200: M.OnboardSessionView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
      detail: { operationId: 'rampOnboardSession', summary: 'Hosted KYC link', description: `${ACCESS} Returns the caller's unexpired hosted onboarding session (\`reused: true\`) or asks the partner for a new one (kept for 1 hour). Function \`kyc\`. ${IDEMPOTENT} ${PARTNER}` },
    })
    .post('/payin/sync-status', ({ body, ctx }) => service.syncStatus(ctx, body), {
      auth: 'any',
      body: M.EnvBody,
      response: { 200: M.SyncStatusView, ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampSyncStatus', summary: 'Read the KYC status from the partner again', description: `${ACCESS} 404 \`RAMP_CUSTOMER_NOT_FOUND\` when the user has no bank ramp profile in that environment (no session was ever created); \`synced: false\` when the partner does not know the customer yet (the hosted onboarding was not started). Sends no event. ${PARTNER}` },
    })
    .get('/currencies', ({ query, ctx }) => service.currencies(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.CurrenciesView, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampCurrencies', summary: 'Currencies and networks offered', description: `${ACCESS} EUR in; the stablecoin out on the networks the tenant has enabled. Function \`payin\`.` },
    })
    .get('/settings', ({ query, ctx }) => service.rampSettings(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.SettingsView, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampSettings', summary: 'The tenant\'s bank ramp switches in one environment', description: 'Bearer; a tenant user. 403 when the tenant does not use the bank ramp; 503 `RAMP_NOT_CONFIGURED` when it is not connected in that environment. Answers even when functions are off, so an app can hide what is off.' },
    })
    .post('/payin/initiate', ({ body, ctx }) => service.initiatePayin(ctx, body), initiateOptions('rampPayinInitiate'))
    .post('/payin/initiate-deposit', ({ body, ctx }) => service.initiatePayin(ctx, body), initiateOptions('rampPayinInitiateDeposit', 'Alias of `POST /v1/ramp/bank/payin/initiate` (its own idempotency scope). '))
    .get('/payin/payment-methods', ({ query, ctx }) => service.paymentMethods(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: t.Object({ paymentMethods: t.Array(M.PaymentMethodView) }), ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampPaymentMethods', summary: 'The caller\'s virtual IBANs', description: `${ACCESS} Function \`payin\`. Newest first.` },
    })
    .get('/payin/deposits', ({ query, ctx }) => service.deposits(ctx, query), {
      auth: 'any',
      query: M.PageQuery,
      response: { 200: M.DepositPage, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampDeposits', summary: 'Bank transfers received on the caller\'s virtual IBANs', description: `${ACCESS} Function \`payin\`. \`limit\` (default 20, at most 100), \`offset\`; newest first. \`fiatAmount\` is a JSON number; refund amounts are decimal text.` },
    })
    .get('/payin/transactions', ({ query, ctx }) => service.payinTransactions(ctx, query), {
      auth: 'any',
      query: M.PageQuery,
      response: { 200: M.TransactionPage, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampPayinTransactions', summary: 'Conversions and on-chain deliveries of the caller\'s deposits', description: `${ACCESS} Function \`payin\`. \`limit\` (default 20, at most 100), \`offset\`; newest first. \`fiatAmount\`, \`cryptoAmount\`, \`exchangeRate\` are JSON numbers; \`fiatFeeAmount\`, \`fiatRate\`, \`networkFee\`, \`breakdown[].amount\`, \`refunds[].amount\` exact decimal text.` },
    })
    .post('/payin/checkout', () => service.checkout(), {
      auth: 'any',
      body: t.Optional(t.Unknown({ examples: [{ fiatAmount: '50.00' }], description: 'not read: card top-up is switched off' })),
      response: { 403: errorResponses('standard', 403)[403]!, ...errorResponses('standard', 401) },
      detail: { operationId: 'rampPayinCheckout', summary: 'Card top-up (switched off)', description: 'Always 403 with `details.code` `CARD_TOPUP_UNAVAILABLE`; use the bank transfer deposit route.' },
    })
    .post('/payin/sandbox/simulate-deposit', ({ body, ctx }) => service.simulateDeposit(ctx, body), {
      auth: 'any',
      body: M.SimulateDepositBody,
      response: { 200: M.SimulatedDepositView, ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampSimulateDeposit', summary: 'Simulate a bank transfer to a sandbox virtual IBAN', description: `${ACCESS} Sandbox only (function \`payin\` of the sandbox). \`amount\` is a JSON number, at most 2 decimals, at most 15000. The partner then sends the deposit's and the conversion's events, which update the records and reach the tenant's webhook. ${PARTNER}` },
    })
    .post('/webhooks/:environment/:tenantId', async ({ params, request, body: _parsed }) => service.receivePartnerWebhook(deps, {
      tenantId: params.tenantId,
      environment: params.environment,
      raw: stateOf(request).raw ?? new Uint8Array(),
      signature: request.headers.get('webhook-signature'),
    }), {
      params: t.Object({ environment: t.Union([t.Literal('sandbox'), t.Literal('production')]), tenantId: t.String({ maxLength: 64 }) }),
      body: t.Unknown({ description: 'the partner\'s event `{ EventType, EventVersion, Occurred, Data, UserID }`', examples: [{ EventType: 'FiatDeposit', EventVersion: 2, Occurred: '2026-11-23T10:00:00Z', Data: { ID: 'dep_1', Status: 'Settled' } }] }),
      response: { 200: t.Object({ received: t.Literal(true), outcome: t.String({ examples: ['applied', 'stale', 'unknown_record', 'ignored'] }) }), ...errorResponses('standard', 400, 401) },
      detail: {
        operationId: 'rampPartnerWebhook',
        tags: ['Bank ramp partner'],
        summary: 'Inbound webhook of the bank ramp partner',
        description: 'Called by the partner, not by apps. `Webhook-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256(webhook key, t + "." + raw body)>`, within 300 seconds (the tenant\'s `bankRamp.<environment>.webhookKey`; derived for the built-in simulator). 401 for a bad signature (and, alike, for a tenant unknown or not connected in that environment), 400 for a body that is not a partner event. Repeated and older events (by `EventVersion` per record) answer 200 and change nothing.',
      },
    })
}

function initiateOptions(operationId: string, prefix = '') {
  return {
    auth: 'any' as const,
    idempotent: true,
    headers: IdempotencyHeaders,
    body: M.PayinInitiateBody,
    response: { 200: M.PaymentMethodView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
    detail: {
      operationId,
      summary: 'A virtual IBAN that converts EUR transfers to the stablecoin at a wallet',
      description: `${prefix}${ACCESS} Function \`payin\`. The wallet must be the caller's (404 \`Wallet not found\`) and on the environment's network (sandbox: testnet wallets). 400 \`RAMP_PAIR_UNAVAILABLE\` with \`details.available\` when the currency or the wallet's chain is not offered; 404 \`RAMP_CUSTOMER_NOT_FOUND\` before any onboarding session. ${IDEMPOTENT} ${PARTNER}`,
    },
  }
}
