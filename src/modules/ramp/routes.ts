/**
 * Bank ramp routes, part 1 (`/v1/ramp/bank`): KYC, pay-ins and the partner's inbound webhooks.
 * The environment is chosen by `isTestnet` (query on reads, body on writes): `true` is the
 * sandbox, omitted or `false` production, as on the payout channel form.
 */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { IdempotencyHeaders, idempotency, registerReplay } from '../../http/idempotency'
import { prose } from '../../http/prose'
import { stateOf } from '../../http/request-state'
import { topLevelNumberText } from '../../lib/json-source'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { stepUpGuard } from '../../http/step-up'
import type { StepUpCheck } from '../../context'
import { ACCESS, descriptions, IDEMPOTENT, PARTNER, perMinute } from './descriptions'
import * as M from './model'
import * as addresses from './addresses'
import { currentPayout, currentPayoutRow, initiatedView } from './payout-run'
import * as payouts from './payouts'
import * as service from './service'

/** `stepUp`: the passkeys module's approval check on payouts (wired in src/services.ts). */
export function rampRoutes(deps: Deps, stepUp: StepUpCheck) {
  // a payout's Idempotency-Key is bound to the payout once recorded: a retry answers it as it is now
  registerReplay('ramp_payout', async (ctx, id) => {
    const view = await currentPayout(ctx, id)
    return view && { status: 200, body: view }
  }, { always: true })
  registerReplay('ramp_payout_initiate', async (ctx, id, body) => {
    const row = await currentPayoutRow(ctx, id)
    return row && { status: 200, body: initiatedView(row, row.exchangeRate, String((body as { cryptoAmount?: unknown }).cryptoAmount)) }
  }, { always: true })
  return new Elysia({ prefix: '/v1/ramp/bank', detail: { tags: ['Bank ramp'] } })
    .use(security(deps))
    .use(stepUpGuard(deps, stepUp))
    .use(idempotency(deps))
    .get('/payin/onboarding-status', ({ query, ctx }) => service.onboardingStatus(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.OnboardingStatusView, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampOnboardingStatus', summary: 'KYC status of the caller', description: descriptions.rampOnboardingStatus },
    })
    .post('/payin/onboard-session', ({ body, ctx }) => service.onboardSession(ctx, body), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      idempotent: true,
      headers: IdempotencyHeaders,
      body: M.OnboardSessionBody,
      response: { 200: M.OnboardSessionView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
      detail: { operationId: 'rampOnboardSession', summary: 'Hosted KYC link', description: descriptions.rampOnboardSession },
    })
    .post('/payin/sync-status', ({ body, ctx }) => service.syncStatus(ctx, body), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      body: M.EnvBody,
      response: { 200: M.SyncStatusView, ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampSyncStatus', summary: 'Read the KYC status from the partner again', description: descriptions.rampSyncStatus },
    })
    .get('/currencies', ({ query, ctx }) => service.currencies(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.CurrenciesView, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampCurrencies', summary: 'Currencies and networks offered', description: descriptions.rampCurrencies },
    })
    .get('/settings', ({ query, ctx }) => service.rampSettings(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.SettingsView, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampSettings', summary: 'The tenant\'s bank ramp switches in one environment', description: descriptions.rampSettings },
    })
    .post('/payin/initiate', ({ body, ctx }) => service.initiatePayin(ctx, body), initiateOptions('rampPayinInitiate'))
    .post('/payin/initiate-deposit', ({ body, ctx }) => service.initiatePayin(ctx, body), initiateOptions(
      'rampPayinInitiateDeposit',
      'Alias of `POST /v1/ramp/bank/payin/initiate` (its own idempotency scope). ',
    ))
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
      detail: { operationId: 'rampDeposits', summary: 'Bank transfers received on the caller\'s virtual IBANs', description: descriptions.rampDeposits },
    })
    .get('/payin/transactions', ({ query, ctx }) => service.payinTransactions(ctx, query), {
      auth: 'any',
      query: M.PageQuery,
      response: { 200: M.TransactionPage, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampPayinTransactions', summary: 'Conversions and on-chain deliveries of the caller\'s deposits', description: descriptions.rampPayinTransactions },
    })
    .post('/payin/checkout', () => service.checkout(), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      body: t.Optional(t.Unknown({ examples: [{ fiatAmount: '50.00' }], description: 'not read: card top-up is switched off' })),
      response: { 403: errorResponses('standard', 403)[403]!, ...errorResponses('standard', 401) },
      detail: { operationId: 'rampPayinCheckout', summary: 'Card top-up (switched off)', description: descriptions.rampPayinCheckout },
    })
    // the amount as written in the body: a parsed float cannot tell 100.000000001 from a valid amount
    .post('/payin/sandbox/simulate-deposit', ({ body, ctx, request }) => service.simulateDeposit(ctx, body, topLevelNumberText(stateOf(request).raw, 'amount')), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      body: M.SimulateDepositBody,
      response: { 200: M.SimulatedDepositView, ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampSimulateDeposit', summary: 'Simulate a bank transfer to a sandbox virtual IBAN', description: descriptions.rampSimulateDeposit },
    })
    .get('/payout/countries', ({ query, ctx }) => payouts.payoutCountries(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.CountriesView, ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampPayoutCountries', summary: 'Countries and currencies bank payouts reach', description: descriptions.rampPayoutCountries },
    })
    .post('/payout/channels/search', ({ body, ctx }) => payouts.searchChannels(ctx, body), {
      auth: 'any',
      rateLimit: { max: 60, windowSeconds: 60 },
      body: M.ChannelSearchBody,
      response: { 200: M.ChannelsView, ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampPayoutChannelsSearch', summary: 'Payout channels (bank transfer methods) for a country, currency and amount', description: descriptions.rampPayoutChannelsSearch },
    })
    .post('/payout/channels/:channelId/form', ({ params, body, ctx }) => payouts.channelForm(ctx, params.channelId, body), {
      auth: 'any',
      rateLimit: { max: 60, windowSeconds: 60 },
      params: M.ChannelIdParams,
      body: M.ChannelFormBody,
      response: { 200: M.ChannelFormView, ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampPayoutChannelForm', summary: 'The form a payout channel asks for', description: descriptions.rampPayoutChannelForm },
    })
    .get('/payout/beneficiaries', ({ query, ctx }) => payouts.beneficiaries(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: M.BeneficiariesView, ...errorResponses('standard', 400, 401, 403, 502, 503) },
      detail: { operationId: 'rampPayoutBeneficiaries', summary: 'Bank accounts the caller has paid out to', description: descriptions.rampPayoutBeneficiaries },
    })
    .post('/payout/quotes', ({ body, ctx }) => payouts.createQuote(ctx, body), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      idempotent: true,
      headers: IdempotencyHeaders,
      body: M.QuoteBody,
      response: { 200: M.QuoteView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
      detail: { operationId: 'rampPayoutQuote', summary: 'Quote a payout from a wallet to a bank account', description: descriptions.rampPayoutQuote },
    })
    .post('/payout/quotes/:quoteId/steps', ({ params, body, ctx }) => payouts.quoteSteps(ctx, params.quoteId, body), {
      auth: 'any',
      rateLimit: { max: 60, windowSeconds: 60 },
      params: M.QuoteIdParams,
      body: M.EnvBody,
      response: { 200: M.QuoteStepsView, ...errorResponses('standard', 400, 401, 403, 404, 503) },
      detail: { operationId: 'rampPayoutQuoteSteps', summary: 'What paying a quote does, and which of it is done', description: descriptions.rampPayoutQuoteSteps },
    })
    .get('/payout/quotes/:quoteId', ({ params, query, ctx }) => payouts.readQuote(ctx, params.quoteId, query), {
      auth: 'any',
      params: M.QuoteIdParams,
      query: M.EnvQuery,
      response: { 200: M.QuoteView, ...errorResponses('standard', 400, 401, 403, 404, 503) },
      detail: { operationId: 'rampPayoutQuoteRead', summary: 'One of the caller\'s payout quotes', description: descriptions.rampPayoutQuoteRead },
    })
    .post('/payout/payouts', ({ body, ctx }) => payouts.createPayout(ctx, body), {
      auth: 'any',
      passkeyApproval: 'payout',
      rateLimit: { max: 10, windowSeconds: 60 },
      idempotent: true,
      headers: IdempotencyHeaders,
      body: M.PayoutBody,
      response: { 200: M.PayoutView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
      detail: { operationId: 'rampPayoutFromWallet', summary: 'Pay a quote from the caller\'s custodial wallet', description: descriptions.rampPayoutFromWallet },
    })
    .post('/payout/initiate', ({ body, ctx }) => payouts.initiatePayout(ctx, body), {
      auth: 'any',
      passkeyApproval: (body: M.InitiateBody) => ({ operations: ['payout'], amount: body.cryptoAmount }),
      rateLimit: { max: 10, windowSeconds: 60 },
      idempotent: true,
      headers: IdempotencyHeaders,
      body: M.InitiateBody,
      response: { 200: M.InitiateView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
      detail: { operationId: 'rampPayoutInitiate', summary: 'Quote and pay out a crypto amount in one call', description: descriptions.rampPayoutInitiate },
    })
    .get('/payout/transactions', ({ query, ctx }) => payouts.listPayouts(ctx, query), {
      auth: 'any',
      query: M.PayoutListQuery,
      response: { 200: M.PayoutPage, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampPayoutTransactions', summary: 'The caller\'s payouts', description: descriptions.rampPayoutTransactions },
    })
    .get('/payout/payouts/:payoutId', ({ params, query, ctx }) => payouts.readPayout(ctx, params.payoutId, query), {
      auth: 'any',
      params: M.PayoutIdParams,
      query: M.EnvQuery,
      response: { 200: M.PayoutView, ...errorResponses('standard', 400, 401, 403, 404, 503) },
      detail: { operationId: 'rampPayoutRead', summary: 'One of the caller\'s payouts', description: `${ACCESS} Function \`payout\`.` },
    })
    .post('/addresses/challenge', ({ body, ctx }) => addresses.addressChallenge(ctx, body), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      body: M.AddressChallengeBody,
      response: { 200: M.AddressChallengeView, ...errorResponses('standard', 400, 401, 403, 404, 503) },
      detail: { operationId: 'rampAddressChallenge', summary: 'A message to sign with an external address', description: descriptions.rampAddressChallenge },
    })
    .post('/addresses/verify', ({ body, ctx }) => addresses.verifyAddress(ctx, body), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      body: M.AddressVerifyBody,
      response: { 200: M.ProvenAddressView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
      detail: { operationId: 'rampAddressVerify', summary: 'Prove an external address with the signed challenge', description: descriptions.rampAddressVerify },
    })
    .get('/addresses', ({ query, ctx }) => addresses.listAddresses(ctx, query), {
      auth: 'any',
      query: M.EnvQuery,
      response: { 200: t.Object({ addresses: t.Array(M.ProvenAddressView) }), ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampAddresses', summary: 'The caller\'s proven addresses', description: `${ACCESS} Newest first.` },
    })
    .delete('/addresses/:id', ({ params, query, ctx }) => addresses.deleteAddress(ctx, params.id, query), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      params: M.AddressIdParams,
      query: M.EnvQuery,
      response: { 200: t.Object({ deleted: t.Literal(true), id: t.String() }), ...errorResponses('standard', 400, 401, 403, 404, 502, 503) },
      detail: { operationId: 'rampAddressDelete', summary: 'Remove a proven address', description: `${ACCESS} Removed at the bank ramp, then in Slipway. ${PARTNER} ${perMinute(20)}` },
    })
    .post('/webhooks/:environment/:tenantId', async ({ params, request, body: _parsed }) => service.receivePartnerWebhook(deps, {
      tenantId: params.tenantId,
      environment: params.environment,
      raw: stateOf(request).raw ?? new Uint8Array(),
      signature: request.headers.get('webhook-signature'),
    }), {
      params: t.Object({ environment: t.Union([t.Literal('sandbox'), t.Literal('production')]), tenantId: t.String({ maxLength: 64 }) }),
      body: t.Unknown({
        description: 'the partner\'s event `{ EventType, EventVersion, Occurred, Data, UserID }`',
        examples: [{ EventType: 'FiatDeposit', EventVersion: 2, Occurred: '2026-11-23T10:00:00Z', Data: { ID: 'dep_1', Status: 'Settled' } }],
      }),
      response: { 200: t.Object({ received: t.Literal(true), outcome: t.String({ examples: ['applied', 'stale', 'unknown_record', 'ignored'] }) }), ...errorResponses('standard', 400, 401) },
      detail: {
        operationId: 'rampPartnerWebhook',
        tags: ['Bank ramp partner'],
        summary: 'Inbound webhook of the bank ramp partner',
        description: descriptions.rampPartnerWebhook,
      },
    })
}

function initiateOptions(operationId: string, prefix = '') {
  return {
    auth: 'any' as const,
    rateLimit: { max: 20, windowSeconds: 60 },
    idempotent: true,
    headers: IdempotencyHeaders,
    body: M.PayinInitiateBody,
    response: { 200: M.PaymentMethodView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
    detail: {
      operationId,
      summary: 'A virtual IBAN that converts EUR transfers to the stablecoin at a wallet',
      description: prose`
        ${prefix}${ACCESS} Function \`payin\`. The wallet must be the caller's (404
        \`Wallet not found\`) and on the environment's network (sandbox: testnet wallets). 400
        \`RAMP_PAIR_UNAVAILABLE\` with \`details.available\` when the currency or the wallet's chain
        is not offered; 404 \`RAMP_CUSTOMER_NOT_FOUND\` before any onboarding session. ${IDEMPOTENT}
        ${PARTNER} ${perMinute(20)}`,
    },
  }
}
