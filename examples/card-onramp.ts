/**
 * The card onramp on the sandbox provider: the tenant's administrator switches it on (it is off
 * for every tenant until then), a user opens a session for their Sepolia wallet (50 EUR of USDC),
 * and the provider's hosted page takes the payment and delivers: on the devnet the USDC reaches
 * the wallet on chain.
 *
 *   npm run devnet; npm start; eval "$(npm run -s slipway -- tenant create --name Acme --sandbox --admin acme-admin)"
 *   npx bun examples/card-onramp.ts [--user <name>]
 */
import { orThrow, SlipwayClient } from '@slipway/client'
import { baseUrl, client, main, need, signedIn, until } from './_setup'

main('card-onramp', async () => {
  // 1. the enable step, as the tenant's administrator (SLIPWAY_ADMIN_USERNAME and _PASSWORD from tenant create --admin)
  const admin = client()
  orThrow(await admin.login({ username: need('SLIPWAY_ADMIN_USERNAME'), password: need('SLIPWAY_ADMIN_PASSWORD') }))
  const tenantId = need('SLIPWAY_TENANT_ID')
  orThrow(await admin.api.PATCH('/v1/admin/tenants/{id}', { params: { path: { id: tenantId } }, body: { settings: { cardOnramp: { enabled: true, sandbox: { connected: true } } } } }))
  console.log(`card onramp enabled for tenant ${tenantId} (sandbox connected)`)

  // 2. a user's session for their Sepolia wallet
  const slipway: SlipwayClient = client()
  await signedIn(slipway, 'buyer', 'examples/card-onramp.ts')
  const mine = orThrow(await slipway.api.GET('/v1/wallets/')).data.find((w) => w.chain === 'ethereum' && w.isTestnet)
  const wallet = mine ?? orThrow(await slipway.api.POST('/v1/wallets/', { body: { chain: 'ethereum', isTestnet: true } }))
  const session = orThrow(await slipway.api.POST('/v1/ramp/card/sessions', { body: { walletId: wallet.id, sourceCurrency: 'eur', sourceAmount: '50.00' } }))
  console.log(`session ${session.id}: ${session.status}; the user opens ${session.redirectUrl}`)

  // 3. the hosted page's buttons, as a script presses them: pay, then complete (the crypto delivered)
  for (const action of ['pay', 'complete']) {
    const res = await fetch(`${baseUrl}/sandbox/card-onramp/session/${session.providerSessionId}/${action}`, { method: 'POST' })
    if (!res.ok) throw new Error(`the sandbox provider refused ${action}: ${res.status} ${await res.text()}`)
  }
  const read = async () => orThrow(await slipway.api.GET('/v1/ramp/card/sessions/{id}', { params: { path: { id: session.id } } }))
  const done = await until('the session completes', read, (s) => s.status === 'fulfillment_complete' || s.status === 'failed')
  if (done.status !== 'fulfillment_complete') throw new Error(`the session ended ${done.status}: ${done.failureCode}`)
  console.log(`session ${done.id}: ${done.status}, ${done.amounts?.destinationAmount} USDC delivered in ${done.transactionId}`)
})
