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
import * as M from './model'
import * as addresses from './addresses'
import { currentPayout, currentPayoutRow, initiatedView } from './payout-run'
import * as payouts from './payouts'
import * as service from './service'

const ACCESS = prose`
  Bearer; a user of a tenant that uses the bank ramp. 403 \`RAMP_NOT_USED\` (\`details.setting\`:
  \`bankRamp.sandbox.connected\`) when the tenant connected neither environment, 403 when the token
  has no tenant; 503 \`RAMP_NOT_CONFIGURED\` when it is not connected in that environment (nobody is
  called); 403 \`RAMP_FUNCTION_OFF\` (\`details.function\`, \`details.environment\`) when the
  function is switched off.`
const PARTNER = prose`
  Partner failures: 502 \`RAMP_AUTHENTICATION_FAILED\`; 503 \`RAMP_UNAVAILABLE\`, \`RAMP_TIMEOUT\`,
  \`RAMP_UNREACHABLE\`, \`RAMP_RATE_LIMITED\`; the partner's own refusals keep their status with
  \`details.code\` \`RAMP_REQUEST_REFUSED\`.`
const PAYOUT = 'Function `payout`. Payouts run only in the sandbox: without `isTestnet: true` the answer is 403 `PAYOUT_PRODUCTION_UNAVAILABLE` and nothing is read or called.'
const IDEMPOTENT = 'Optional `Idempotency-Key` (see Idempotency): every answer carries `idempotency-replayed`.'
/** every write route is rate limited per client IP, like the other groups' writes (docs/bank-ramp.md, Rate limits) */
const perMinute = (max: number) => `Rate limit: ${max} per minute per client IP (429 with \`retry-after\`).`

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  rampOnboardingStatus: prose`
    ${ACCESS} Read from Slipway's record (kept current by the partner's events); the partner is not
    called. Function \`kyc\`.`,
  rampOnboardSession: prose`
    ${ACCESS} Returns the caller's unexpired hosted onboarding session (\`reused: true\`) or asks
    the partner for a new one (kept for 1 hour). Function \`kyc\`. ${IDEMPOTENT} ${PARTNER}
    ${perMinute(20)}`,
  rampSyncStatus: prose`
    ${ACCESS} 404 \`RAMP_CUSTOMER_NOT_FOUND\` when the user has no bank ramp profile in that
    environment (no session was ever created); \`synced: false\` when the partner does not know the
    customer yet (the hosted onboarding was not started). Sends no event. ${PARTNER}
    ${perMinute(30)}`,
  rampCurrencies: prose`
    ${ACCESS} EUR in; the stablecoin out on the networks the tenant has enabled. Function \`payin\`.`,
  rampSettings: prose`
    Bearer; a tenant user. 403 \`RAMP_NOT_USED\` when the tenant connected neither environment; 503
    \`RAMP_NOT_CONFIGURED\` when it is not connected in that environment. Answers even when
    functions are off, so an app can hide what is off. \`limits.simulateDepositMax\` is decimal text
    (\`"15000"\`) like every amount in an answer, though the \`amount\` it bounds is sent as a JSON
    number.`,
  rampDeposits: prose`
    ${ACCESS} Function \`payin\`. \`limit\` (default 20, at most 100), \`offset\`; newest first.
    \`fiatAmount\` and \`refunds[].amount\` are exact decimal text without trailing zeros
    (\`"250.5"\`), as in the \`ramp.deposit.updated\` event.`,
  rampPayinTransactions: prose`
    ${ACCESS} Function \`payin\`. \`limit\` (default 20, at most 100), \`offset\`; newest first.
    \`fiatAmount\`, \`cryptoAmount\`, \`exchangeRate\` (the same value as \`fiatRate\`),
    \`fiatFeeAmount\`, \`fiatRate\`, \`networkFee\`, \`breakdown[].amount\`, \`refunds[].amount\`
    are exact decimal text without trailing zeros (\`"267.8292"\`), as in the
    \`ramp.transaction.updated\` event.`,
  rampPayinCheckout: prose`
    Always 403 with \`details.code\` \`CARD_TOPUP_UNAVAILABLE\`; use the bank transfer deposit
    route. ${perMinute(20)}`,
  rampSimulateDeposit: prose`
    ${ACCESS} Sandbox only (function \`payin\` of the sandbox). \`amount\` is a JSON number written
    with at most 2 decimals and no exponent (\`100.000000001\` or \`1e2\` answer 400: the text sent
    is checked, not the parsed float), more than 0, at most 15000. The partner then sends the
    deposit's and the conversion's events, which update the records and reach the tenant's webhook.
    ${PARTNER} ${perMinute(30)}`,
  rampPayoutCountries: `${ACCESS} Function \`payout\`. Read from the bank ramp; nothing stored. ${PARTNER}`,
  rampPayoutChannelsSearch: prose`
    ${ACCESS} Function \`payout\`. A POST because \`paymentMethodId\` contains the account number.
    Read from the bank ramp; nothing stored. \`limits\`, \`rate\` and \`totalFee\` are the bank
    ramp's figures as exact decimal text without trailing zeros (\`"10"\`, \`"1.08"\`). ${PARTNER}
    ${perMinute(60)}`,
  rampPayoutChannelForm: prose`
    ${ACCESS} Function \`payout\`. A POST because the payment method id contains the account number;
    nothing is stored and nothing moves. \`formSchema\` is a JSON Schema (draft-07) object, with
    \`paymentMethodId\` only of what the bank ramp still lacks; \`formSchema\` and
    \`formContentHash\` are \`null\` when nothing more is needed. 400 when \`channelId\` is not a
    UUID; 404 \`RAMP_CUSTOMER_NOT_FOUND\` when the user has no bank ramp profile in that
    environment; 404 \`RAMP_RESOURCE_NOT_FOUND\` when the hosted onboarding was not started (the
    bank ramp does not know the customer yet), or the channel or payment method is unknown. KYC
    approval is not needed. ${PARTNER} ${perMinute(60)}`,
  rampPayoutBeneficiaries: prose`
    ${ACCESS} Function \`payout\`. The bank ramp's saved payment methods of the caller other than
    their virtual IBANs; only the account number's last 4 characters are shown (the
    \`paymentMethodId\` contains it, to pass to the channel form and quotes). ${PARTNER}`,
  rampPayoutQuote: prose`
    ${ACCESS} ${PAYOUT} The bank ramp prepares the sell (fee, the most crypto it may take) and
    checks the filled \`form\` of the channel (its refusal passes through, \`details.fields\` by
    field). \`fiatAmount\` has at most 2 decimals; the answer's \`fiatAmount\`, \`totalFee\` and
    \`exchangeRate\` are decimal text without trailing zeros (\`"100"\`, \`"1.5"\`),
    \`cryptoAmountEstimate\` and \`cryptoAuthorizedAmount\` are in the smallest unit (6 decimals).
    The wallet must be the caller's testnet wallet on a chain the bank ramp offers. Payable for 10
    minutes. ${IDEMPOTENT} ${PARTNER} ${perMinute(30)}`,
  rampPayoutQuoteSteps: prose`
    ${ACCESS} ${PAYOUT} The on-chain transfer from the wallet to the bank ramp's deposit address
    (amount in the smallest unit), then the bank ramp's payout. Reads only;
    \`POST /v1/ramp/bank/payout/payouts\` runs them. ${perMinute(60)}`,
  rampPayoutQuoteRead: `${ACCESS} ${PAYOUT} \`status\`: \`open\`, \`used\` (\`payoutId\` paid it) or \`expired\`.`,
  rampPayoutFromWallet: prose`
    ${ACCESS} ${PAYOUT} Holds \`cryptoAuthorizedAmount\` against the wallet's balance (the chain's
    balance less every send and payout of the wallet still in flight; 400 \`INSUFFICIENT_BALANCE\`
    when it does not fit, nothing recorded) in the same transaction that records the payout, then
    sends it from the quote's custodial wallet to the bank ramp's deposit address (a transaction of
    \`/v1/transactions\`, \`transactionId\`, \`txHash\`). The answer is the payout, \`pending\`,
    with \`rampTransactionId\` \`null\`: the bank ramp is asked to sell only once the transfer is
    mined and successful (a background job; an unavailable bank ramp is asked again). A transfer
    that reverts or is dropped ends the payout \`failed\` with \`failureReason\` and sends
    \`ramp.payout.updated\`. Then the bank ramp's events: \`processing\`, \`completed\` or
    \`failed\` (each change sends \`ramp.payout.updated\`). 409 when the quote was already paid; 400
    \`RAMP_QUOTE_EXPIRED\`; 400 for a wallet that is not custodial; the transactions module's errors
    when the transfer cannot be sent (it reached no node: nothing is recorded then). ${IDEMPOTENT}
    Once the payout is recorded the key stays bound to it: a retry answers the payout as it is now,
    whatever the first answer was. ${PARTNER} ${perMinute(10)}`,
  rampPayoutInitiate: prose`
    ${ACCESS} ${PAYOUT} \`cryptoAmount\` is an integer string read with 6 decimals for every
    currency; the fiat amount is what the channel's rate gives for it after fees, so that at most
    \`cryptoAmount\` is sent. The answer is the payout with \`fiatAmount\` as decimal text with
    exactly 2 decimals (\`"100.00"\`: the platform API spec fixes it so for this answer),
    \`totalFee\` and \`exchangeRate\` as decimal text without trailing zeros and \`cryptoAmount\`,
    \`cryptoAuthorizedAmount\` as integer text in the smallest unit; it is paid as
    \`POST /v1/ramp/bank/payout/payouts\` pays a quote (the hold, 400 \`INSUFFICIENT_BALANCE\`, the
    sell once the transfer is mined). ${IDEMPOTENT} Once the payout is recorded the key stays bound
    to it: a retry answers the payout as it is now. ${PARTNER} ${perMinute(10)}`,
  rampPayoutTransactions: prose`
    ${ACCESS} Function \`payout\`. \`page\` (default 1), \`limit\` (default 20, at most 100); newest
    first; \`{ payouts, total, page, limit, totalPages }\`.`,
  rampAddressChallenge: prose`
    ${ACCESS} (no function switch). The user needs a bank ramp profile in that environment (404
    \`RAMP_CUSTOMER_NOT_FOUND\`). The message names the chain, the address, the environment, a
    random nonce and its expiry (10 minutes); it can be verified once. ${perMinute(20)}`,
  rampAddressVerify: prose`
    ${ACCESS} (no function switch). EIP-191 on EVM chains, ed25519 on Solana. A challenge is used
    once, whatever the outcome: 400 \`ADDRESS_SIGNATURE_INVALID\` for a signature that is not the
    address owner's (the challenge is spent), 409 \`ADDRESS_CHALLENGE_USED\`, 400
    \`ADDRESS_CHALLENGE_EXPIRED\`, 404 for another user's or an unknown challenge. The proof is
    registered with the bank ramp before it is recorded. ${PARTNER} ${perMinute(20)}`,
  rampPartnerWebhook: prose`
    Called by the partner, not by apps.
    \`Webhook-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256(webhook key, t + "." + raw body)>\`,
    within 300 seconds (the tenant's \`bankRamp.<environment>.webhookKey\`; derived for the built-in
    simulator). 401 for a bad signature (and, alike, for a tenant unknown or not connected in that
    environment), 400 for a body that is not a partner event. Repeated and older events (by
    \`EventVersion\` per record) answer 200 and change nothing.`,
}

export function rampRoutes(deps: Deps) {
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
      detail: { operationId: 'rampDeposits', summary: 'Bank transfers received on the caller\'s virtual IBANs', description: descriptions.rampDeposits },
    })
    .get('/payin/transactions', ({ query, ctx }) => service.payinTransactions(ctx, query), {
      auth: 'any',
      query: M.PageQuery,
      response: { 200: M.TransactionPage, ...errorResponses('standard', 400, 401, 403, 503) },
      detail: { operationId: 'rampPayinTransactions', summary: prose`
        Conversions and on-chain deliveries of the caller's deposits`, description: descriptions.rampPayinTransactions },
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
      detail: { operationId: 'rampPayoutChannelsSearch', summary: prose`
        Payout channels (bank transfer methods) for a country, currency and amount`, description: descriptions.rampPayoutChannelsSearch },
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
      rateLimit: { max: 10, windowSeconds: 60 },
      idempotent: true,
      headers: IdempotencyHeaders,
      body: M.PayoutBody,
      response: { 200: M.PayoutView, ...errorResponses('standard', 400, 401, 403, 404, 409, 502, 503) },
      detail: { operationId: 'rampPayoutFromWallet', summary: 'Pay a quote from the caller\'s custodial wallet', description: descriptions.rampPayoutFromWallet },
    })
    .post('/payout/initiate', ({ body, ctx }) => payouts.initiatePayout(ctx, body), {
      auth: 'any',
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
