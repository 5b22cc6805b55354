/**
 * The bank ramp partner's REST protocol (NOAH Business API 0.1.3, PascalCase fields,
 * `X-Api-Key`), as far as Slipway uses it, plus the fields the spec needs that the
 * partner's file lacks (`SubStatus`, `RequestForInformation`, `TransactionHash`,
 * `DestinationAddress`), modelled the same way. Failures are thrown as `RampApiError`
 * (src/lib/errors.ts) with the spec's `details.code`.
 */

export type RampEnvironment = 'sandbox' | 'production'

/** Where and as whom one tenant talks to the partner in one environment. */
export interface PartnerConnection {
  baseUrl: string
  apiKey: string
  /** the embedded simulator is reached in process; the network otherwise */
  fetch?: typeof fetch
}

export interface PartnerVerification { Model: string; Status: 'Approved' | 'Pending' | 'Declined' | string }
export interface PartnerEntityVerification { Model: string; Status: string; Entity: string; Created: string; Modified: string }
export interface PartnerAgreement { Name: string; Version: number; Accepted: boolean; AcceptedAt: string }

export interface PartnerCustomer {
  Type: 'Individual' | 'Business'
  CustomerID: string
  Created: string
  Verification: PartnerVerification
  Verifications?: { Type: string; Status: string; EntityVerifications: PartnerEntityVerification[] }
  /** modelled: agreements the customer accepted and what the partner still asks for */
  Agreements?: PartnerAgreement[]
  ActionsRequired?: string[]
  /** the hosted onboarding was opened (the partner knows the customer from then on) */
  [k: string]: unknown
}

export interface HostedOnboardingRequest {
  ReturnURL: string
  FiatOptions: Array<{ FiatCurrencyCode: string }>
  CustomerType?: 'Individual' | 'Business'
  Metadata?: Record<string, string>
}
export interface HostedSessionResponse { HostedURL: string }

export interface BankDepositToOnchainAddressRequest {
  CustomerID: string
  FiatCurrency: string
  CryptoCurrency: string
  Network: string
  DestinationAddress: { Address: string }
}
export interface BankDepositToOnchainAddressResponse {
  PaymentMethodID: string
  PaymentMethodType: string
  Reference?: string
  AccountNumber: string
  AccountHolderName?: string
  BankCode?: string
  BankName?: string
}

export interface PartnerPaymentMethod {
  ID: string
  CustomerID?: string
  Country: string
  PaymentMethodCategory: string
  DisplayDetails: { Type: string; AccountNumber?: string; BankCode?: string }
}

export interface FiatDepositSimulateRequest { PaymentMethodID: string; FiatAmount: string; FiatCurrency: string; Reference?: string }

export interface PartnerRequestForInformation { Reason: string; Fields: string[]; RequestedAt: string }
export interface PartnerFiatRefund { RefundID: string; RefundedAmount: string; RequestedTime: string; Status: string }

export interface PartnerFiatDeposit {
  ID: string
  Created: string
  FiatAmount: string
  FiatCurrency: string
  Status: 'Pending' | 'Failed' | 'Settled' | string
  SubStatus?: string | null
  CustomerID?: string
  PaymentMethodID: string
  PaymentMethodType: string
  PaymentSystemID?: string
  Reference?: string
  Refunds: PartnerFiatRefund[]
  RequestForInformation?: PartnerRequestForInformation | null
}

export interface PartnerTransaction {
  ID: string
  Network: string
  Created: string
  Status: 'Pending' | 'Failed' | 'Settled' | string
  SubStatus?: string | null
  Direction: 'In' | 'Out'
  CustomerID?: string
  Amount?: string
  NetworkFee?: string
  CryptoCurrency: string
  FiatPayment?: { Amount: string; FeeAmount: string; Rate?: string; FiatCurrency: string; FiatDepositID?: string; PaymentSystemID?: string }
  Orchestration?: { RuleID: string; RuleExecutionID: string }
  Breakdown?: Array<{ Type: string; Amount: string }>
  AdjustmentFor?: { AdjustedTransactionID: string; AdjustmentID: string; Reason: string }
  Refunds?: Array<{ RefundID: string; RefundedAmount: string; Currency: string; RequestTime: string; Status: string }>
  DestinationAddress?: string
  TransactionHash?: string
  RequestForInformation?: PartnerRequestForInformation | null
  /** Slipway's id of a sell (its payout), as sent in `SellRequest.ExternalID` */
  ExternalID?: string
}

/** A partner webhook (`Webhook-Signature` header over the raw body; see docs/bank-ramp.md). */
export interface PartnerEvent {
  EventType: 'Customer' | 'FiatDeposit' | 'Transaction' | 'CheckoutSession' | string
  EventVersion: number
  Occurred: string
  Data: Record<string, unknown>
  UserID?: string
}

/** Payouts (sell channels, dynamic forms, prepare and sell), as in the partner's file. */
export interface ChannelsQuery {
  CryptoCurrency: string
  Country?: string
  FiatCurrency?: string
  FiatAmount?: string
  CustomerID?: string
  PaymentMethodID?: string
}
export interface PartnerChannel {
  ID: string
  PaymentMethodCategory: string
  PaymentMethodType: string
  FiatCurrency: string
  Country: string
  Calculated?: { TotalFee: string }
  Limits: { MinLimit: string; MaxLimit?: string }
  Rate: string
  ProcessingSeconds: number
  ProcessingTier?: string
  PaymentMethods?: Array<{ ID: string; PaymentMethodType: string; Details: Record<string, unknown> }>
}
/** A draft-07 JSON Schema object; omitted by the partner when nothing more is needed. */
export interface GetFormResponse { FormSchema?: Record<string, unknown> }

export interface PrepareSellRequest {
  ChannelID: string
  CryptoCurrency: string
  FiatAmount: string
  CustomerID?: string
  PaymentMethodID?: string
  Form?: Record<string, unknown>
  /** modelled: the network the crypto leg is sent on, so the partner can name its deposit address */
  Network?: string
}
export interface PrepareSellResponse {
  FormSessionID: string
  TotalFee: string
  CryptoAmountEstimate: string
  CryptoAuthorizedAmount: string
  /** modelled: where the customer's crypto is sent before the sell (the partner credits the customer's balance) */
  DepositAddress?: { Network: string; Address: string }
}
export interface SellRequest {
  CryptoCurrency: string
  FiatAmount: string
  CryptoAuthorizedAmount: string
  FormSessionID: string
  /** the partner's idempotency key: the same Nonce never sells twice */
  Nonce: string
  ExternalID?: string
  /** modelled: the on-chain transfer that funded the sell */
  SourceTransactionHash?: string
}
export interface SellResponse { Transaction: PartnerTransaction }

/**
 * Modelled (the partner's file lacks them): an external address the customer proved to
 * control, registered with the signed message so the partner can check it again.
 */
export interface ProvenAddressRequest {
  Network: string
  Address: string
  Message: string
  Signature: string
  SignatureScheme: 'EIP191' | 'Ed25519'
}
export interface PartnerProvenAddress { AddressID: string; Network: string; Address: string; Created: string }

/** One tenant's connection to the partner in one environment. */
export interface BankRampClient {
  getCustomer(customerId: string): Promise<PartnerCustomer>
  createOnboardingSession(customerId: string, req: HostedOnboardingRequest): Promise<HostedSessionResponse>
  createBankDepositWorkflow(req: BankDepositToOnchainAddressRequest): Promise<BankDepositToOnchainAddressResponse>
  listPaymentMethods(customerId: string): Promise<PartnerPaymentMethod[]>
  simulateFiatDeposit(req: FiatDepositSimulateRequest): Promise<{ FiatDepositID: string }>
  /** `{ [Country]: FiatCurrency[] }` */
  sellCountries(customerId?: string): Promise<Record<string, string[]>>
  sellChannels(q: ChannelsQuery): Promise<PartnerChannel[]>
  channelForm(channelId: string, q: { CustomerID?: string; PaymentMethodID?: string }): Promise<GetFormResponse>
  prepareSell(req: PrepareSellRequest): Promise<PrepareSellResponse>
  sell(req: SellRequest): Promise<SellResponse>
  registerAddress(customerId: string, req: ProvenAddressRequest): Promise<PartnerProvenAddress>
  removeAddress(customerId: string, addressId: string): Promise<void>
}

export interface BankRampPort {
  connect(conn: PartnerConnection): BankRampClient
}
