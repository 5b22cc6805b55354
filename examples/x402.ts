/**
 * An agent pays for a resource over x402 on the devnet: the user's Sepolia wallet gets 5 test USDC,
 * the tenant's administrator sets a policy allowing x402, an agent on that wallet with its own
 * key, and the merchant; the user consents; the agent pays GET https://x402.devnet.test/weather
 * (0.01 USDC, at most 0.05) and gets the forecast.
 *
 *   npm run devnet; npm start; eval "$(npm run -s slipway -- tenant create --name Acme --sandbox --admin acme-admin)"
 *   npx bun examples/x402.ts [--user <name>]
 */
import { orThrow } from '@slipway/client'
import { baseUrl, client, main, need, signedIn } from './_setup'

/** the devnet merchant's payTo (scripts/devnet/x402.ts) */
const MERCHANT = '0xE04Ec2E4549Fdbf1E04a1cCC1210C7774f23b862'

main('x402', async () => {
  const user = client()
  await signedIn(user, 'owner', 'examples/x402.ts')
  const wallet = orThrow(await user.api.POST('/v1/wallets/', { body: { chain: 'ethereum', isTestnet: true } }))
  orThrow(await user.api.POST('/v1/sandbox/faucet', { body: { walletId: wallet.id, stablecoin: '5000000' } }))
  console.log(`wallet ${wallet.address}: gas and 5 USDC`)

  const admin = client()
  orThrow(await admin.login({ username: need('SLIPWAY_ADMIN_USERNAME'), password: need('SLIPWAY_ADMIN_PASSWORD') }))
  const policy = orThrow(await admin.api.POST('/v1/agent-payments/policies', { body: { name: 'research', currency: 'USDC', limits: [{ interval: 'daily', amount: '5' }], allowedRails: ['x402'] } }))
  const agent = orThrow(await admin.api.POST('/v1/agent-payments/agents', { body: { name: 'researcher', walletId: wallet.id, policyId: policy.id } }))
  const key = orThrow(await admin.api.POST('/v1/agent-payments/agents/{agentId}/api-keys', { params: { path: { agentId: agent.id } }, body: { name: 'worker' } }))
  const merchant = orThrow(await admin.api.POST('/v1/agent-payments/merchants', { body: { name: 'weather', category: 'data', payTo: { network: 'sepolia', address: MERCHANT } } }))
  orThrow(await user.api.POST('/v1/agent-payments/agents/{agentId}/wallet-consent', { params: { path: { agentId: agent.id } } }))
  console.log(`agent ${agent.id} on the wallet, consented by its owner`)

  // the agent calls with its own key as a bearer token (it never holds a user's session)
  const paid = await fetch(`${baseUrl}/v1/agent-payments/executions`, {
    method: 'POST', headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agentId: agent.id, merchantId: merchant.id, rail: 'x402', resourceUrl: 'https://x402.devnet.test/weather', amount: '0.05', currency: 'USDC' }),
  })
  const execution = await paid.json() as { id: string; status: string; amount: string; txHash: string | null; failureReason: string | null; x402?: { resource?: { body: string | null } | null } | null }
  if (paid.status !== 201 || execution.status !== 'succeeded') throw new Error(`the payment answered ${paid.status} ${execution.status}: ${execution.failureReason}`)
  console.log(`paid ${execution.amount} USDC in ${execution.txHash}: ${execution.x402?.resource?.body}`)
})
