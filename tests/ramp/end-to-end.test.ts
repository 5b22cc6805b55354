/**
 * The whole pay-in flow over HTTP: Slipway served on 127.0.0.1, the simulator as its own
 * server paying from its funded wallet on a local chain (anvil), the tenant's receiver.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { evmStablecoinSender } from '@/adapters/chain/funded-sender'
import { isUuid } from '@/lib/ids'
import { isValidIban } from '@/sandbox/bank-ramp/iban'
import { FUNDER_KEY, startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import type { SignedInUser } from '@tests/helpers/factories'
import { DEPOSIT_FIELDS, events, KYC_FIELDS, onboard, postPartnerEvent, rampWorld, TRANSACTION_FIELDS, until, type RampTenant, type RampWorld } from './world'

let chain: LocalChain
let w: RampWorld
let tenant: RampTenant
let user: SignedInUser

beforeAll(async () => {
  chain = await startLocalChain()
  w = await rampWorld({ sim: { chain: evmStablecoinSender({ rpcUrl: chain.url, tokenAddress: chain.tokenAddress, privateKey: FUNDER_KEY }) } })
  tenant = await w.rampTenant()
  user = await w.f.user(tenant)
})
afterAll(async () => {
  await w.stop()
  await chain.stop()
})

const api = () => w.f.api
const sortedKeys = (o: object) => Object.keys(o).sort()

test('onboard, approve, virtual IBAN, simulated deposit: the records, the chain and the tenant events agree', async () => {
  const token = user.accessToken
  const wallet = await api().post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token })
  expect(wallet.status).toBe(201)

  const before = await api().get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', { token })
  expect(before.status).toBe(200)
  expect(before.body).toMatchObject({ environment: 'sandbox', kycStatus: 'not_started', onboardingStatus: 'not_started', nextStep: 'create_session' })

  await onboard(w, user, 'approve')
  // opening the page (Pending) and approving: two customer events, two tenant events
  await until(() => events(w.receiver, 'ramp.kyc.updated'), (e) => e.length >= 2)
  const status = await api().get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', { token })
  expect(status.body).toMatchObject({ kycStatus: 'approved', onboardingStatus: 'completed', verificationStatus: 'Approved', nextStep: 'initiate_payin' })
  expect(status.body.regions).toEqual([{ region: 'NoahEU', status: 'Approved', model: 'Standard', updatedAt: expect.any(String) }])

  const iban = await api().post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, { token })
  expect(iban.status).toBe(200)
  expect(iban.headers.get('idempotency-replayed')).toBe('false')
  expect(isValidIban(iban.body.iban)).toBe(true)
  expect(iban.body).toMatchObject({ fiatCurrency: 'EUR', cryptoCurrency: 'USDC', network: 'ethereum', walletId: wallet.body.id, destinationAddress: wallet.body.address })
  const methods = await api().get('/v1/ramp/bank/payin/payment-methods?isTestnet=true', { token })
  expect(methods.body.paymentMethods.map((m: { id: string }) => m.id)).toEqual([iban.body.id])

  const sim = await api().post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 100.5 }, { token })
  expect(sim.status).toBe(200)
  expect(sim.body).toMatchObject({ paymentMethodId: iban.body.id, fiatAmount: '100.5', fiatCurrency: 'EUR', status: 'pending' })
  await w.sim.settle()
  // deposit pending (AML screening) and settled; conversion settled; delivery submitted and settled
  await until(() => events(w.receiver), (e) => e.filter((x) => x.type === 'ramp.deposit.updated').length >= 2 && e.filter((x) => x.type === 'ramp.transaction.updated').length >= 3, 15_000)

  // 100.50 EUR - 1.01 fee = 99.49 at 1.08 = 107.4492 USDC, paid on chain from the simulator's wallet
  const pub = createPublicClient({ transport: http(chain.url) })
  const balance = await pub.readContract({ address: chain.tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.body.address as Address] })
  expect(balance).toBe(107_449_200n)

  const kyc = events(w.receiver, 'ramp.kyc.updated')
  expect(kyc).toHaveLength(2)
  for (const e of kyc) expect(sortedKeys(e.data)).toEqual([...KYC_FIELDS].sort())
  expect(kyc.map((e) => e.data.kycStatus).sort()).toEqual(['approved', 'pending'])
  for (const e of kyc) expect(e).toMatchObject({ environment: 'sandbox', data: { userId: user.id } })

  const dep = events(w.receiver, 'ramp.deposit.updated')
  expect(dep).toHaveLength(2)
  for (const e of dep) expect(sortedKeys(e.data)).toEqual([...DEPOSIT_FIELDS].sort())
  const settled = dep.find((e) => e.data.rampStatus === 'Settled')!
  const screening = dep.find((e) => e.data.rampStatus === 'Pending')!
  expect(screening.data).toMatchObject({ status: 'pending', rampSubStatus: 'AmlScreening' })
  expect(settled.data).toMatchObject({
    depositId: sim.body.depositId, rampDepositId: sim.body.rampDepositId, userId: user.id, paymentMethodId: iban.body.id, status: 'completed',
    rampSubStatus: null, requestForInformation: null, refunds: [], paymentMethodType: 'BankSepa', fiatAmount: '100.5', fiatCurrency: 'EUR',
  })
  expect(settled.data.paymentSystemId).toStartWith('SEPA-')
  // never the account number or the partner's payment method id
  expect(JSON.stringify(dep)).not.toContain(iban.body.iban)
  expect(JSON.stringify(events(w.receiver))).not.toContain('Bank/Sepa/')

  const txs = events(w.receiver, 'ramp.transaction.updated')
  expect(txs).toHaveLength(3)
  for (const e of txs) expect(sortedKeys(e.data)).toEqual([...TRANSACTION_FIELDS].sort())
  const conversion = txs.find((e) => e.data.transactionType === 'payin_conversion')!
  expect(conversion.data).toMatchObject({
    status: 'completed', direction: 'in', cryptoAmount: '107.4492', cryptoCurrency: 'USDC', fiatAmount: '100.5', fiatCurrency: 'EUR', network: 'ethereum',
    depositId: sim.body.depositId, rampDepositId: sim.body.rampDepositId, fiatFeeAmount: '1.01', fiatRate: '1.08', refunds: [],
    breakdown: [{ type: 'ChannelFee', amount: '1.01' }, { type: 'Remaining', amount: '99.49' }], reversesTransactionId: null, adjustment: null,
  })
  const deliveries = txs.filter((e) => e.data.transactionType === 'payin_delivery')
  expect(deliveries.map((e) => e.data.status).sort()).toEqual(['completed', 'pending'])
  const delivered = deliveries.find((e) => e.data.status === 'completed')!
  // rule 5: the delivery's deposit is the conversion's, found through the rule execution
  expect(delivered.data).toMatchObject({ direction: 'out', depositId: sim.body.depositId, ruleExecutionId: conversion.data.ruleExecutionId, destinationAddress: wallet.body.address, networkFee: '0' })
  expect(delivered.data.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)
  // rule 3: Slipway's own ids for the rule and its execution; the simulator makes the transfer
  // reference from its rule id, so the partner's id would give the reference away (rule 8)
  const reference = (iban.body.reference as string).toLowerCase()
  expect(reference).toMatch(/^[0-9a-f]{8}$/)
  for (const e of txs) {
    expect(isUuid(e.data.ruleId)).toBe(true)
    expect(isUuid(e.data.ruleExecutionId)).toBe(true)
    expect(e.data.ruleId).not.toStartWith(reference)
  }
  expect(JSON.stringify(events(w.receiver)).toLowerCase()).not.toContain(reference)
  expect(new Set(txs.map((e) => e.data.ruleId)).size).toBe(1)
  expect(deliveries.find((e) => e.data.status === 'pending')!.data.rampSubStatus).toBe('Submitted')
  // one delivery per change: ids are unique
  expect(new Set(events(w.receiver).map((e) => e.id)).size).toBe(events(w.receiver).length)

  const deposits = await api().get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token })
  expect(deposits.body).toMatchObject({ total: 1, limit: 20, offset: 0 })
  expect(deposits.body.deposits[0]).toMatchObject({ id: sim.body.depositId, status: 'completed', fiatAmount: '100.5' })
  const list = await api().get('/v1/ramp/bank/payin/transactions?isTestnet=true&limit=1', { token })
  expect(list.body).toMatchObject({ total: 2, limit: 1, offset: 0 })
  const all = await api().get('/v1/ramp/bank/payin/transactions?isTestnet=true', { token })
  const conv = all.body.transactions.find((x: { transactionType: string }) => x.transactionType === 'payin_conversion')
  expect(conv).toMatchObject({ cryptoAmount: '107.4492', fiatAmount: '100.5', exchangeRate: '1.08', fiatFeeAmount: '1.01', fiatRate: '1.08' })
})

test('a partner event naming a payment method the tenant has no record of is not applied and sends nothing', async () => {
  const before = w.receiver.received.length
  const rows = await api().get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token: user.accessToken })
  const d = rows.body.deposits[0]
  const replay = await postPartnerEvent(tenant.webhookUrl, tenant.webhookKey, {
    EventType: 'FiatDeposit', EventVersion: 2, Occurred: new Date().toISOString(),
    Data: { ID: d.rampDepositId, PaymentMethodID: 'x', Status: 'Failed', FiatAmount: '1', FiatCurrency: 'EUR', Refunds: [] },
  })
  // an unknown payment method: not this tenant's record
  expect(replay.body.outcome).toBe('unknown_record')
  await Bun.sleep(200)
  expect(w.receiver.received.length).toBe(before)
})
