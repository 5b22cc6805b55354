/**
 * `npm start` with no partner configured: the process serves the simulator under
 * /sandbox/bank-ramp, and a tenant whose sandbox is connected without a partner address runs
 * the whole flow on one machine, the simulator paying from its funded key on a local chain.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, startProcess, type RunningProcess } from '@tests/helpers/process'
import { FUNDER_KEY, startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { until } from './world'

let chain: LocalChain
let proc: RunningProcess

beforeAll(async () => {
  chain = await startLocalChain()
  proc = await startProcess([process.execPath, 'src/index.ts'], {
    env: { BANK_RAMP_SIMULATOR_RPC_URL: chain.url, BANK_RAMP_SIMULATOR_TOKEN_ADDRESS: chain.tokenAddress, BANK_RAMP_SIMULATOR_PRIVATE_KEY: FUNDER_KEY },
  })
}, 30_000)
afterAll(async () => {
  await proc.stop()
  await chain.stop()
})

test('onboard, IBAN and a simulated deposit against the embedded simulator; the stablecoin arrives on chain', async () => {
  const api = new Api(proc.url)
  const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
  const tenant = (await api.post('/v1/admin/tenants', { name: 'ramp-process', settings: { bankRamp: { sandbox: { connected: true, functions: { kyc: true, payin: true } } } } }, { token: admin })).body
  const reg = await api.post('/v1/auth/register', { username: 'payer', email: 'payer@example.com', password: 'Passw0rd-long' }, { signedBy: tenant })
  expect(reg.status).toBe(201)
  const token = reg.body.accessToken
  const s = await api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token })
  expect(s.status).toBe(200)
  // PUBLIC_BASE_URL defaults to http://localhost:$PORT; the process listens on 127.0.0.1
  const pageUrl = (s.body.url as string).replace('//localhost:', '//127.0.0.1:')
  expect(pageUrl).toStartWith(`${proc.url}/sandbox/bank-ramp/onboarding/`)
  expect((await fetch(pageUrl)).status).toBe(200)
  expect((await fetch(`${pageUrl}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) })).status).toBe(200)
  await until(() => api.get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', { token }), (r) => r.body.kycStatus === 'approved')
  const wallet = await api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token })
  const iban = await api.post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, { token })
  expect(iban.status).toBe(200)
  expect((await api.post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 10 }, { token })).status).toBe(200)
  const txs = await until(() => api.get('/v1/ramp/bank/payin/transactions?isTestnet=true', { token }), (r) => r.body.transactions?.some((x: { transactionType: string; status: string }) => x.transactionType === 'payin_delivery' && x.status === 'completed'), 20_000)
  const delivery = txs.body.transactions.find((x: { transactionType: string }) => x.transactionType === 'payin_delivery')
  expect(delivery.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)
  // 10.00 EUR - 0.10 fee = 9.90 at 1.08 = 10.692 USDC
  const pub = createPublicClient({ transport: http(chain.url) })
  expect(await pub.readContract({ address: chain.tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.body.address as Address] })).toBe(10_692_000n)
}, 40_000)
