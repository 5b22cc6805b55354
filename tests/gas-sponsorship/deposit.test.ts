/**
 * The paymaster deposit watch: below PAYMASTER_MIN_DEPOSIT_WEI sponsored routes answer 503
 * PAYMASTER_DEPOSIT_LOW (custodial sends and ERC-7677 alike), the metric counts it; `slipway
 * paymaster deposit` tops the deposit up from a funded key and sponsorship resumes.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { gasSponsorship } from '@/modules/gas-sponsorship'
import { paymasterDeposit } from '@/ops/paymaster-deposit'
import { FUNDER_KEY } from '@tests/helpers/evm-node'
import { custodialWallet, USDC_MAINNET, waitFor } from '../transactions/helpers'
import { gasWorld } from './world'

// the devnet paymaster holds 10 ETH: a 12 ETH threshold puts it below
const w = gasWorld({ jobs: true, env: { PAYMASTER_MIN_DEPOSIT_WEI: parseEther('12').toString() } })

beforeAll(async () => {
  await w.aa.node.installMulticall3()
  await w.aa.node.placeToken(USDC_MAINNET)
}, 30_000)

describe('paymaster deposit', () => {
  test('below the threshold: 503 PAYMASTER_DEPOSIT_LOW and the metric; after `slipway paymaster deposit` the send goes sponsored', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'] })
    const u = await w.f.user(w.tenant)
    const wallet = await custodialWallet(w.f.api, u)
    await w.aa.node.sendToken(wallet.address, 5_000_000n, USDC_MAINNET)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const body = { walletId: wallet.id, chain: 'ethereum', toAddress: to, amount: '1000000', tokenAddress: USDC_MAINNET }
    const low = await w.f.api.post('/v1/transactions/', body, { token: u.accessToken })
    expect(low.status).toBe(503)
    expect(low.body.code).toBe('PAYMASTER_DEPOSIT_LOW')
    const metrics = await w.f.api.get('/metrics', { token: await w.f.adminToken() })
    expect(String(metrics.body)).toMatch(/slipway_paymaster_deposit_low_total\{network="ethereum"\} [1-9]/)
    // the CLI: usage errors, then a top-up from the funded key read on standard input
    const lines: string[] = []
    const config = { ...w.t.deps.config, rpcUrls: { ...w.t.deps.config.rpcUrls, ethereum: w.aa.node.url } }
    expect(await paymasterDeposit(config, ['--network', 'ethereum'], async () => FUNDER_KEY, (l) => lines.push(l))).toBe(2)
    const before = await w.deposit()
    expect(await paymasterDeposit(config, ['--network', 'ethereum', '--amount', parseEther('5').toString()], async () => `${FUNDER_KEY}\n`, (l) => lines.push(l))).toBe(0)
    expect(await w.deposit()).toBe(before + parseEther('5'))
    expect(lines.at(-1)).toContain('the deposit is now')
    await gasSponsorship.forgetDeposits()
    const ok = await w.f.api.post('/v1/transactions/', body, { token: u.accessToken })
    expect(ok.status).toBe(201)
    expect(ok.body.sponsored).toBe(true)
    const done = await waitFor(() => w.f.api.get(`/v1/transactions/${ok.body.id}`, { token: u.accessToken }), (r) => r.body?.status !== 'pending', 45_000)
    expect(done.body.status).toBe('confirmed')
  }, 90_000)
})
