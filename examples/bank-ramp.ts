/**
 * The bank ramp on the sandbox simulator: a custodial Sepolia wallet with gas from the faucet, KYC
 * approved on the hosted page, a virtual IBAN, 100 EUR deposited and credited as USDC on chain
 * (106.92: docs/sandbox.md explains the rate and fee), then 50 USDC paid out to a bank account.
 *
 *   npm run devnet; npm start; eval "$(npm run -s slipway -- tenant create --name Acme --sandbox --admin acme-admin)"
 *   npx bun examples/bank-ramp.ts [--user <name>]
 */
import { orThrow } from '@slipway/client'
import { client, main, signedIn, until } from './_setup'

main('bank-ramp', async () => {
  const slipway = client()
  await signedIn(slipway, 'ramp', 'examples/bank-ramp.ts')
  const mine = orThrow(await slipway.api.GET('/v1/wallets/')).data.find((w) => w.chain === 'ethereum' && w.isTestnet)
  const wallet = mine ?? orThrow(await slipway.api.POST('/v1/wallets/', { body: { chain: 'ethereum', isTestnet: true } }))
  orThrow(await slipway.api.POST('/v1/sandbox/faucet', { body: { walletId: wallet.id } }))
  console.log(`wallet ${wallet.address} on sepolia, with gas`)

  const status = async () => orThrow(await slipway.api.GET('/v1/ramp/bank/payin/onboarding-status', { params: { query: { isTestnet: 'true' } } }))
  if ((await status()).kycStatus !== 'approved') {
    // the simulator's hosted KYC page: the user opens it and clicks "approve"; a script does the same
    const page = orThrow(await slipway.api.POST('/v1/ramp/bank/payin/onboard-session', { body: { isTestnet: true } }))
    if (!(await fetch(page.url)).ok) throw new Error(`the hosted KYC page ${page.url} did not open`)
    const decided = await fetch(`${page.url}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) })
    if (!decided.ok) throw new Error(`the hosted KYC page refused the approval: ${decided.status}`)
    await until('KYC approved', status, (s) => s.kycStatus === 'approved')
  }
  console.log('kyc approved')

  const iban = orThrow(await slipway.api.POST('/v1/ramp/bank/payin/initiate', { body: { walletId: wallet.id, isTestnet: true } }))
  const deposit = orThrow(await slipway.api.POST('/v1/ramp/bank/payin/sandbox/simulate-deposit', { body: { amount: 100 } }))
  const deposits = async () => orThrow(await slipway.api.GET('/v1/ramp/bank/payin/deposits', { params: { query: { isTestnet: 'true' } } })).deposits
  await until('the deposit completes', deposits, (ds) => ds.some((d) => d.id === deposit.depositId && d.status === 'completed'))
  console.log(`deposit ${deposit.depositId} of 100 EUR to ${iban.iban}: completed`)

  const usdc = async () => orThrow(await slipway.api.GET('/v1/wallets/{id}/balance', { params: { path: { id: wallet.id } } })).tokens.find((t) => t.symbol === 'USDC')?.balance ?? '0'
  console.log(`the wallet holds ${await until('the USDC on chain (balances are cached up to 15 s)', usdc, (b) => Number(b) > 0)} USDC`)

  const channels = orThrow(await slipway.api.POST('/v1/ramp/bank/payout/channels/search', { body: { isTestnet: true, country: 'DE', fiatCurrency: 'EUR' } }))
  const sepa = channels.channels.find((c) => c.paymentMethodType === 'BankSepa') ?? (() => { throw new Error('no SEPA payout channel') })()
  const payout = orThrow(await slipway.api.POST('/v1/ramp/bank/payout/initiate', {
    body: { channelId: sepa.channelId, walletId: wallet.id, cryptoAmount: '50000000', form: { AccountHolderName: 'Alice Example', IBAN: 'DE89370400440532013000' }, isTestnet: true },
  }))
  const read = async () => orThrow(await slipway.api.GET('/v1/ramp/bank/payout/payouts/{payoutId}', { params: { path: { payoutId: payout.id }, query: { isTestnet: 'true' } } }))
  const paid = await until('the payout ends', read, (p) => p.status === 'completed' || p.status === 'failed', 90_000)
  console.log(`payout ${paid.id}: ${paid.status}, ${paid.fiatAmount} ${paid.fiatCurrency} to the bank for 50 USDC`)
})
