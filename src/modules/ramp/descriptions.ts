/**
 * What the OpenAPI document says of the bank ramp's operations (src/modules/ramp/routes.ts),
 * kept off the route lines: the access and partner-failure sentences every operation shares,
 * then each operation's description by its operationId.
 */
import { prose } from '../../http/prose'

export const ACCESS = prose`
  Bearer; a user of a tenant that uses the bank ramp. 403 \`RAMP_NOT_USED\` (\`details.setting\`:
  \`bankRamp.sandbox.connected\`) when the tenant connected neither environment, 403 when the token
  has no tenant; 503 \`RAMP_NOT_CONFIGURED\` when it is not connected in that environment (nobody is
  called); 403 \`RAMP_FUNCTION_OFF\` (\`details.function\`, \`details.environment\`) when the
  function is switched off.`
export const PARTNER = prose`
  Partner failures: 502 \`RAMP_AUTHENTICATION_FAILED\`; 503 \`RAMP_UNAVAILABLE\`, \`RAMP_TIMEOUT\`,
  \`RAMP_UNREACHABLE\`, \`RAMP_RATE_LIMITED\`; the partner's own refusals keep their status with
  \`details.code\` \`RAMP_REQUEST_REFUSED\`.`
export const PAYOUT = 'Function `payout`. Payouts run only in the sandbox: without `isTestnet: true` the answer is 403 `PAYOUT_PRODUCTION_UNAVAILABLE` and nothing is read or called.'
/** The step-up note of the payout routes (docs/passkeys.md). */
export const PASSKEY_PAYOUT = prose`
  With \`payout\` in the tenant's \`passkeys.stepUp.operations\` (above \`amountAbove\` when set), a
  caller who has a passkey sends an approval for this body in \`Passkey-Approval\` (403
  \`PASSKEY_APPROVAL_REQUIRED\` without it).`
export const IDEMPOTENT = 'Optional `Idempotency-Key` (see Idempotency): every answer carries `idempotency-replayed`.'
/** every write route is rate limited per client IP, like the other groups' writes (docs/bank-ramp.md, Rate limits) */
export const perMinute = (max: number) => `Rate limit: ${max} per minute per client IP (429 with \`retry-after\`).`

/** What the OpenAPI document says of each operation, kept off the route lines. */
export const descriptions = {
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
    whatever the first answer was. ${PASSKEY_PAYOUT} Its amount is the quote's, not in the body: with \`amountAbove\` set it is
    guarded whatever the amount. ${PARTNER} ${perMinute(10)}`,
  rampPayoutInitiate: prose`
    ${ACCESS} ${PAYOUT} \`cryptoAmount\` is an integer string read with 6 decimals for every
    currency; the fiat amount is what the channel's rate gives for it after fees, so that at most
    \`cryptoAmount\` is sent. The answer is the payout with \`fiatAmount\` as decimal text with
    exactly 2 decimals (\`"100.00"\`: the platform API spec fixes it so for this answer),
    \`totalFee\` and \`exchangeRate\` as decimal text without trailing zeros and \`cryptoAmount\`,
    \`cryptoAuthorizedAmount\` as integer text in the smallest unit; it is paid as
    \`POST /v1/ramp/bank/payout/payouts\` pays a quote (the hold, 400 \`INSUFFICIENT_BALANCE\`, the
    sell once the transfer is mined). ${IDEMPOTENT} Once the payout is recorded the key stays bound
    to it: a retry answers the payout as it is now. ${PASSKEY_PAYOUT} ${PARTNER} ${perMinute(10)}`,
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
