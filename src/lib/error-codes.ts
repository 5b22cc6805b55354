/**
 * Every machine-readable code an error answer can carry, in one table: the status it
 * answers with and its default message (a throw usually names its case more exactly).
 * Most codes travel in the envelope's `code`; those marked `details` travel in
 * `details.code` (the bank ramp's codes and the idempotency codes, as the spec has them).
 *
 * `ErrorOptions.code` (./errors.ts) takes only a key of this table, so a throw cannot name
 * a code that is not here; the OpenAPI document lists the keys as the `ErrorCode` and
 * `ErrorDetailCode` enums (src/http/openapi.ts), and tests/platform/error-codes.test.ts
 * keeps the table, the enums and the codes written in src/ equal, statuses included.
 *
 * Not here: what is written on a record rather than answered as an error, such as an
 * agent payment's judging reasons (`reasons[].code`) and its x402 failure codes.
 */

export interface ErrorCodeEntry {
  /** the status answered; several where callers differ; `partner` = the bank ramp partner's own 4xx */
  status: number | readonly number[] | 'partner'
  message: string
  /** `details`: carried in `details.code`, not in `code` */
  at?: 'details'
}

const e = (status: ErrorCodeEntry['status'], message: string): ErrorCodeEntry => ({ status, message })
const d = (status: ErrorCodeEntry['status'], message: string): ErrorCodeEntry => ({ status, message, at: 'details' })

export const ERROR_CODES = {
  // platform: database, idempotency, tenant settings
  DATABASE_UNAVAILABLE: e(503, 'The database is unavailable; try again shortly'),
  DATABASE_BUSY: e(503, 'Too many writes in flight on this server, or the database\'s write lock held by another writer; nothing was written, try again after retry-after seconds'),
  IDEMPOTENCY_KEY_INVALID: d(400, 'Idempotency-Key must be 1 to 255 letters, digits, - or _'),
  IDEMPOTENCY_KEY_REUSED: d(409, 'This Idempotency-Key was used with another request body'),
  IDEMPOTENCY_IN_PROGRESS: d(409, 'A request with this Idempotency-Key is still running'),
  SETTING_PLATFORM_ADMIN_ONLY: e(403, 'Only a platform admin can change this setting'),
  // wallets, chains, transactions
  PRIMARY_WALLET_EXISTS: e(409, 'A primary wallet already exists for this chain and network type'),
  WALLET_NOT_FOUND: e(404, 'Wallet not found'),
  CHAIN_RPC_ERROR: e(502, 'The node refused the call'),
  CONTRACT_NOT_AVAILABLE: e(501, 'No contract is deployed on this network'),
  CONTRACT_CALL_REVERTED: e(422, 'The contract refused the call (reverted)'),
  NETWORK_UNAVAILABLE: e(503, 'The network is temporarily unavailable'),
  INSUFFICIENT_BALANCE: e(400, 'The wallet\'s balance does not cover this amount beside the sends and holds in flight'),
  PREPARED_TX_NOT_FOUND: e(404, 'Prepared transaction not found'),
  PREPARED_TX_EXPIRED: e(410, 'This prepared transaction has expired'),
  PREPARED_TX_ALREADY_USED: e(409, 'This prepared transaction was already broadcast'),
  TRANSACTION_ALREADY_BROADCAST: e(409, 'This signed transaction was already broadcast'),
  TRANSACTION_REJECTED: e(400, 'The network refused the transaction'),
  TRANSACTION_WOULD_FAIL: e(400, 'The network refuses this transaction'),
  TRANSACTION_TYPE_UNSUPPORTED: e(400, 'This transaction type cannot be broadcast here'),
  SIGNATURE_DECODE_FAILED: e(400, 'The signature could not be decoded'),
  SIGNATURE_INVALID: e(400, 'The signature does not verify over the transaction\'s message'),
  WRONG_SIGNER: e(400, 'The signature was not made by the wallet\'s key'),
  CHAIN_ID_MISMATCH: e(400, 'The transaction is signed for another chain id'),
  SOLANA_CALL_UNREADABLE: e(400, 'The transaction to send is not a serialized Solana transaction'),
  SOLANA_CALL_UNSUPPORTED: e(400, 'The transaction needs signatures other than the wallet\'s'),
  SOLANA_CALL_WRONG_PAYER: e(400, 'The transaction\'s fee payer is not the wallet'),
  // swaps
  SWAP_AGGREGATOR_UNAVAILABLE: e(503, 'Unable to get a swap quote: the swap aggregator is unavailable right now; try again shortly'),
  SWAP_NO_ROUTE: e(400, 'No swap route found for this token pair and amount (the aggregator has no quote for it)'),
  SWAP_QUOTE_REFUSED: e(400, 'Unable to get a swap quote from the aggregator; check the tokens and the amount, then try again'),
  SWAP_NO_DIRECT_ROUTE: e(400, 'No direct route: the aggregator would deliver another token'),
  SWAP_NEEDS_DESTINATION_SIGNATURE: e(400, 'No single-transaction route'),
  SWAP_ALLOWANCE_CHECK_FAILED: e(400, 'Failed to check token allowance'),
  SWAP_QUOTE_NOT_FOUND: e(404, 'Quote not found'),
  SWAP_QUOTE_EXPIRED: e(400, 'The quote has expired: ask for a new one with POST /v1/swap/quote'),
  SWAP_GASLESS_DISABLED: e(400, 'Gasless swaps are not enabled on this deployment'),
  SWAP_GASLESS_NOT_ELIGIBLE: e(400, 'This quote cannot be swapped gaslessly'),
  SWAP_GASLESS_AMOUNT_TOO_SMALL: e(400, 'The amount does not cover the relayer\'s fee for the gas'),
  SWAP_GASLESS_CLIENT_SIGNS: e(400, 'This wallet signs on the client: sign the permit and send it to POST /v1/swap/broadcast-gasless'),
  SWAP_PERMIT_SIGNATURE_INVALID: e(400, 'The permit signature is not valid'),
  SWAP_GASLESS_SIMULATION_FAILED: e(400, 'The swap would fail on chain, so nothing was sent'),
  SWAP_GASLESS_ALREADY_RELAYED: e(409, 'This quote or permit is already being relayed or was relayed'),
  SWAP_GASLESS_TENANT_DAILY_LIMIT: e(429, 'The gasless relayer\'s daily budget for this tenant is used up'),
  SWAP_GASLESS_USER_DAILY_LIMIT: e(429, 'Your daily budget of gasless swaps is used up'),
  SWAP_RELAYER_LOW_GAS: e(503, 'Gasless swaps are unavailable for now: the relayer cannot pay the network fee'),
  // gas sponsorship (ERC-4337 user operations, the paymaster, gas policies)
  GAS_SPONSORSHIP_NOT_CONFIGURED: e(503, 'Gas sponsorship is off on this network: no bundler or paymaster is configured for it'),
  GAS_POLICY_INVALID: e(400, 'The gas policy is not valid'),
  GAS_POLICY_OFF: e(403, 'The tenant does not sponsor gas on this network'),
  GAS_OPERATION_NOT_SPONSORED: e(403, 'The tenant\'s gas policy does not sponsor this operation'),
  GAS_SENDER_NOT_ALLOWED: e(403, 'The sender is not a wallet of the signed-in user'),
  GAS_COST_ABOVE_LIMIT: e(403, 'The operation may cost more gas than the policy sponsors for one operation'),
  GAS_USER_DAILY_LIMIT: e(429, 'The user\'s daily gas sponsorship is used up'),
  GAS_TENANT_MONTHLY_BUDGET: e(429, 'The tenant\'s monthly gas sponsorship budget is used up'),
  GAS_PRICE_UNAVAILABLE: e(503, 'The gas policy has limits in USD and no USD price of the native coin is available'),
  GAS_DELEGATION_PENDING: e(409, 'The wallet\'s first (delegating) sponsored operation is still in flight'),
  PAYMASTER_DEPOSIT_LOW: e(503, 'Gas sponsorship is paused: the paymaster\'s deposit is below its threshold'),
  USER_OPERATION_REJECTED: e(400, 'The bundler refused the user operation'),
  BUNDLER_UNAVAILABLE: e(503, 'The bundler cannot be reached'),
  // lending (Aave)
  AAVE_NETWORK_UNSUPPORTED: e(400, 'Aave has no pool on this network'),
  AAVE_RESERVE_NOT_LISTED: e(400, 'The Aave pool does not list this asset as a reserve'),
  AAVE_CLIENT_SIGNED_WALLET: e(400, 'This wallet signs on the client: use the prepare routes and then /v1/aave/broadcast'),
  AAVE_CUSTODIAL_WALLET: e(400, 'Slipway signs for this wallet: use POST /v1/aave/supply or /withdraw'),
  AAVE_INSUFFICIENT_SUPPLY: e(400, 'The wallet has less of this asset supplied to the pool than the amount'),
  AAVE_SUPPLY_NOT_SENT: e(409, 'The approval of the pool was sent and the supply was not: supply again with a new Idempotency-Key'),
  // dapps
  DAPP_MESSAGE_INVALID: e(400, 'The message is not valid in its encoding'),
  DAPP_MESSAGE_IS_TRANSACTION: e(400, 'The message is a serialized transaction: use POST /v1/dapps/broadcast for transactions'),
  DAPP_MESSAGE_IS_TYPED_DATA: e(400, 'The message is EIP-712 typed data: Slipway does not sign typed data through this route'),
  DAPP_MESSAGE_IS_HASH: e(400, 'The message is a bare 32-byte value (a hash): sign readable text'),
  DAPP_NONCE_INVALID: e(400, 'Unknown nonce: use one that GET /v1/dapps/nonce issued to you'),
  DAPP_NONCE_EXPIRED: e(400, 'This nonce has expired: get a new one with GET /v1/dapps/nonce'),
  DAPP_NONCE_USED: e(409, 'This nonce was already used: get a new one with GET /v1/dapps/nonce'),
  DAPP_NONCE_NOT_IN_MESSAGE: e(400, 'The message must contain the nonce it spends'),
  DAPP_WALLET_NOT_CUSTODIAL: e(400, 'Slipway cannot sign with this wallet'),
  // MPC
  MPC_NOT_ENABLED: e(403, 'This tenant does not use MPC wallets (walletMode is not `mpc`)'),
  MPC_ENGINE_NOT_CONFIGURED: e(503, 'This deployment has no MPC engine: MPC wallets are off until an operator sets MPC_ENGINE'),
  MPC_CHAIN_UNSUPPORTED: e(400, 'MPC wallets are EVM only'),
  MPC_NOT_AN_MPC_WALLET: e(400, 'This wallet is not an MPC wallet'),
  MPC_SESSION_NOT_FOUND: e(404, 'MPC session not found'),
  MPC_SESSION_EXPIRED: e(410, 'This MPC session has expired; start a new one'),
  MPC_SESSION_FULL: e(409, 'This session already holds its limit of messages'),
  MPC_NOT_A_PARTY: e(403, 'You are not a party of this MPC session'),
  MPC_NOT_JOINED: e(403, 'Join the session as this party first'),
  MPC_NOT_A_SIGNING_SESSION: e(400, 'A DKG session signs nothing: only signing sessions have a message hash'),
  MPC_BAD_RECIPIENT: e(400, 'The recipient is not another party of this session'),
  MPC_BAD_ROUND: e(400, 'The round is not one of this session\'s'),
  MPC_BAD_RESULT: e(400, 'The result is not of this session\'s kind'),
  MPC_MESSAGE_TOO_LARGE: e(413, 'The message payload is too large'),
  MPC_MESSAGE_OUT_OF_ORDER: e(409, 'The party\'s message is not of its current or next round'),
  MPC_MESSAGE_REPLAYED: e(409, 'The party already sent its message of this round'),
  MPC_RESULT_CONFLICT: e(409, 'The party already reported another result'),
  MPC_DKG_INCOMPLETE: e(409, 'Key generation is not finished'),
  MPC_PUBLIC_KEY_MISMATCH: e(409, 'The parties reported different public keys: this key generation failed; start a new one'),
  MPC_WALLET_ALREADY_REGISTERED: e(409, 'A wallet was already registered from this DKG session'),
  MPC_NO_SERVICE_SHARE: e(409, 'The service party holds no share of this wallet'),
  MPC_SIGNATURE_INVALID: e(400, 'This signature does not sign the session\'s hash with the wallet\'s key'),
  MPC_WALLET_GONE: e(409, 'The wallet of this signing session is gone'),
  // bank ramp (in `details.code`)
  RAMP_NOT_USED: d(403, 'This tenant does not use the bank ramp'),
  RAMP_NOT_CONFIGURED: d(503, 'The bank ramp is not connected for this tenant in this environment'),
  RAMP_FUNCTION_OFF: d(403, 'This bank ramp function is switched off for this tenant'),
  RAMP_CUSTOMER_NOT_FOUND: d(404, 'No bank ramp profile for this user'),
  RAMP_PAIR_UNAVAILABLE: d(400, 'This currency pair is not offered'),
  RAMP_QUOTE_EXPIRED: d(400, 'The quote has expired; ask for a new one'),
  RAMP_AUTHENTICATION_FAILED: d(502, 'The bank ramp refused the tenant\'s credentials'),
  RAMP_UNAVAILABLE: d(503, 'The bank ramp is unavailable'),
  RAMP_TIMEOUT: d(503, 'The bank ramp did not answer in time'),
  RAMP_UNREACHABLE: d(503, 'The bank ramp cannot be reached'),
  RAMP_RATE_LIMITED: d(503, 'The bank ramp is rate limiting requests'),
  RAMP_RESOURCE_NOT_FOUND: d(404, 'The bank ramp has no such resource'),
  RAMP_REQUEST_REFUSED: d('partner', 'The bank ramp refused the request'),
  RAMP_WEBHOOK_INVALID: d(400, 'The webhook address is refused'),
  ADDRESS_CHALLENGE_EXPIRED: d(400, 'This challenge has expired; ask for a new one'),
  ADDRESS_CHALLENGE_USED: d(409, 'This challenge was already used; ask for a new one'),
  ADDRESS_SIGNATURE_INVALID: d(400, 'The signature is not the address owner\'s over the challenge message'),
  CARD_TOPUP_UNAVAILABLE: d(403, 'Card top-up is switched off; use the bank transfer deposit route'),
  PAYOUT_PRODUCTION_UNAVAILABLE: d(403, 'Payouts are available only in the sandbox (isTestnet: true)'),
  // card onramp
  CARD_ONRAMP_NOT_ENABLED: e(403, 'This tenant does not use the card onramp (cardOnramp.enabled)'),
  CARD_ONRAMP_NOT_CONFIGURED: e(503, 'The card onramp is not configured in this environment'),
  CARD_ONRAMP_AMOUNTS: e(400, 'Send sourceAmount or destinationAmount, not both'),
  CARD_ONRAMP_CHAIN_UNSUPPORTED: e(400, 'The card onramp does not deliver to this chain'),
  CARD_ONRAMP_SESSION_NOT_FOUND: e(404, 'Card onramp session not found'),
  CARD_ONRAMP_BAD_ANSWER: e(502, 'The card onramp provider answered no session'),
  CARD_ONRAMP_AUTHENTICATION_FAILED: e(502, 'The card onramp provider refused Slipway\'s credentials'),
  CARD_ONRAMP_UNAVAILABLE: e(503, 'The card onramp provider is unavailable; try again later'),
  CARD_ONRAMP_RATE_LIMITED: e(503, 'The card onramp provider is rate limiting; try again later'),
  CARD_ONRAMP_REFUSED: e(400, 'The card onramp provider refused the session'),
  CARD_ONRAMP_EVENT_SIGNATURE: e(401, 'The event\'s signature does not verify'),
  CARD_ONRAMP_EVENT_TOO_LARGE: e(413, 'The provider event is too large'),
  // sandbox faucet (in `details.code`)
  SANDBOX_FAUCET_NOT_CONFIGURED: d(503, 'The sandbox faucet is not configured: run `npm run devnet` and restart'),
  SANDBOX_FAUCET_NETWORK: d(400, 'The sandbox faucet pays on another network than this wallet\'s'),
  SANDBOX_FAUCET_UNAVAILABLE: d(503, 'The sandbox faucet could not pay: is the devnet running (npm run devnet)?'),
  // agent payments: agents, policies, merchants, shoppers
  AGENT_ARCHIVED: e(409, 'The agent is archived'),
  AGENT_STATE_INVALID: e(409, 'The agent is not in the state this change needs'),
  AGENT_JWK_PRIVATE: e(400, 'publicKeyJwk must be a public key: it has private members'),
  AGENT_WALLET_NOT_CUSTODIAL: e(400, 'The agent\'s wallet must be custodial: Slipway signs its payments'),
  AGENT_WALLET_CONSENT_REQUIRED: e(409, 'The wallet\'s owner has not consented to this agent paying from it'),
  AGENT_PAYMENTS_WEBHOOK_INVALID: e(400, 'The webhook address is refused'),
  POLICY_INVALID: e(400, 'The policy is not valid'),
  POLICY_NOT_FOUND: e(404, 'Policy not found'),
  POLICY_IN_USE: e(409, 'An agent uses this policy: give the agent another policy or archive it first'),
  MERCHANT_NOT_FOUND: e(404, 'Merchant not found'),
  MERCHANT_DISABLED: e(409, 'The merchant is disabled'),
  MERCHANT_PAY_TO_INVALID: e(400, 'The merchant\'s payTo is not valid'),
  SHOPPER_NOT_FOUND: e(404, 'Shopper not found'),
  SHOPPER_EXISTS: e(409, 'The merchant already has a shopper with this externalRef'),
  SHOPPER_JWK_INVALID: e(400, 'publicKeyJwk must be an EC P-256 (ES256) or OKP Ed25519 (EdDSA) public key'),
  SHOPPER_JWK_PRIVATE: e(400, 'publicKeyJwk must be a public key: it has private members'),
  SHOPPER_KEY_MISSING: e([400, 409], 'The shopper has no key to verify the JWS'),
  SHOPPER_KEY_CHANGED: e(409, 'The shopper\'s key changed: sign with its current key'),
  SHOPPER_KEY_CHANGE_FORBIDDEN: e(403, 'A merchant key cannot change a shopper\'s key'),
  SHOPPER_JWS_INVALID: e(400, 'The shopper\'s JWS is not signed by the shopper\'s key'),
  SHOPPER_JWS_EXPIRED: e(400, 'The shopper\'s JWS has expired'),
  SHOPPER_JWS_CONTENT_MISMATCH: e(400, 'The shopper\'s JWS signs other content'),
  // agent payments: mandates
  MANDATE_INVALID: e(400, 'The mandate is not valid'),
  MANDATE_CART_REQUIRED: e(400, 'A cart mandate needs its cart'),
  MANDATE_CART_NOT_ALLOWED: e(400, 'An intent mandate has no cart'),
  MANDATE_CART_TOTAL_MISMATCH: e(400, 'cart.total is not the sum of its items'),
  MANDATE_NOT_FOUND: e(404, 'Mandate not found'),
  MANDATE_EXPIRED: e(409, 'The mandate has expired'),
  MANDATE_STATE_INVALID: e(409, 'The mandate is not in the state this change needs'),
  // agent payments: executions, approvals, x402
  MERCHANT_REQUIRED: e(400, 'An onchain execution pays a merchant: merchantId is required'),
  RESOURCE_URL_REQUIRED: e(400, 'An x402 execution pays for a resource: resourceUrl is required'),
  RESOURCE_URL_X402_ONLY: e(400, 'resourceUrl is for the x402 rail'),
  RESOURCE_URL_REFUSED: e(400, 'resourceUrl is refused'),
  NETWORK_UNKNOWN: e(400, 'Unknown network'),
  NETWORK_MISMATCH: e(400, 'The network is not the merchant\'s or the agent\'s wallet\'s'),
  RAIL_NETWORK_UNSUPPORTED: e(400, 'The x402 rail pays on EVM networks'),
  CURRENCY_NOT_ON_NETWORK: e(400, 'The currency is not a token of this network in the registry'),
  AMOUNT_INVALID: e(400, 'The amount must be more than 0'),
  AMOUNT_PRECISION: e(400, 'The amount has more decimals than the token'),
  IDEMPOTENCY_KEY_IN_USE: e(409, 'This idempotencyKey is used by another agent\'s execution'),
  EXECUTION_STATE_INVALID: e(409, 'The execution is not in the state this action needs'),
  CONFIRMATION_LIMIT_EXCEEDED: e(409, 'The payment no longer passes its policy or mandate'),
  APPROVAL_LIMIT_EXCEEDED: e(409, 'The payment no longer passes its policy or mandate'),
  APPROVAL_STATE_INVALID: e(409, 'The approval is no longer pending'),
  REFUND_TOO_LARGE: e(400, 'The refund is more than is left to refund'),
  RECEIPT_NOT_READY: e(404, 'No receipt: the execution has not been paid'),
  X402_NETWORK_UNSUPPORTED: e(400, 'The agent\'s wallet is on a chain the registry does not know'),
  X402_PAYEE_REFUSED: e(409, 'The payee is refused'),
  // passkeys: registration, sign-in, approvals, the hosted page (400 on registration and approvals, 401 on sign-in)
  PASSKEYS_NOT_CONFIGURED: e([400, 401], 'Passkeys are not configured for this tenant: set passkeys.rpId and passkeys.origins'),
  PASSKEY_RESPONSE_INVALID: e([400, 401], 'The passkey response cannot be read'),
  PASSKEY_CHALLENGE_UNKNOWN: e([400, 401], 'The challenge of this passkey response was not issued for this ceremony'),
  PASSKEY_CHALLENGE_EXPIRED: e([400, 401], 'The challenge of this passkey response has expired: ask for new options'),
  PASSKEY_ASSERTION_REPLAYED: e([400, 401], 'This passkey response was already used (its challenge is spent)'),
  PASSKEY_ORIGIN_NOT_ALLOWED: e([400, 401], 'The passkey response comes from an origin the tenant does not allow'),
  PASSKEY_RP_MISMATCH: e([400, 401], 'The passkey response was made for another relying party'),
  PASSKEY_CREDENTIAL_UNKNOWN: e([400, 401], 'This passkey is not registered (or was deleted)'),
  PASSKEY_COUNTER_REGRESSED: e([400, 401], 'The authenticator\'s signature counter went backwards: the passkey may be cloned'),
  PASSKEY_VERIFICATION_FAILED: e([400, 401], 'The passkey response does not verify'),
  PASSKEY_ALREADY_REGISTERED: e(409, 'This passkey is already registered'),
  PASSKEY_LAST_SIGN_IN_METHOD: e(409, 'This is the account\'s last way to sign in: add another before deleting it'),
  PASSKEY_APPROVAL_REQUIRED: e(403, 'This operation needs a fresh passkey approval (Passkey-Approval header)'),
  PASSKEY_APPROVAL_INVALID: e(403, 'The passkey approval is invalid, expired, used, or made for another request'),
  PASSKEY_REQUIRED: e(403, 'This tenant requires a registered passkey for this operation'),
  PASSKEY_HOSTED_SESSION_INVALID: e(400, 'The hosted passkey session is invalid, expired or already used'),
  PASSKEY_CODE_INVALID: e(401, 'The one-time code is invalid, expired or already used'),
  PASSKEY_RETURN_URL_NOT_ALLOWED: e(400, 'The returnUrl is not one of the tenant\'s passkeys.hostedReturnUrls'),
} as const satisfies Record<string, ErrorCodeEntry>

export type ErrorCode = keyof typeof ERROR_CODES

/** The codes of one place in the envelope: `code` , or `details.code`. */
export function errorCodesAt(at: 'code' | 'details'): ErrorCode[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ((ERROR_CODES[c] as ErrorCodeEntry).at ?? 'code') === at)
}
