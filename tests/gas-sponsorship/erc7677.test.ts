/**
 * ERC-7677 on the devnet: a non-custodial wallet (a key the test holds, registered as the user's
 * client wallet) sends USDC with 0 ETH through alto, sponsored by Slipway's paymaster service via
 * viem's own createPaymasterClient; the policy's refusals; limits held under concurrency; a
 * paymaster signature replayed on another operation fails on chain.
 */
import { describe, expect, test } from 'bun:test'
import { encodeFunctionData, erc20Abi, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createBundlerClient } from 'viem/account-abstraction'
import { clientWallet } from '../transactions/helpers'
import { SIMPLE_7702_ACCOUNT } from '../../scripts/devnet/aa'
import { erc7677Client } from './erc7677-client'
import { gasWorld } from './world'

const w = gasWorld()

const { nonCustodial, transfer, authorize, pm, draftOp, DRAFT_COST, rpcUrl } = erc7677Client(w)

describe('ERC-7677 paymaster service', () => {
  test('a non-custodial wallet with 0 ETH sends USDC sponsored through viem\'s paymaster client: delegated, still 0 ETH, the deposit paid, usage counted', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'], userDailyLimitWei: null, maxPerOperationWei: null, tenantMonthlyBudgetWei: null })
    const u = await w.f.user(w.tenant)
    const { owner, account, bundler } = await nonCustodial(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const before = await w.deposit()
    const hash = await bundler.sendUserOperation({ account, authorization: await authorize(owner), calls: [transfer(to, 5_000_000n)] })
    const receipt = await bundler.waitForUserOperationReceipt({ hash, timeout: 30_000 })
    expect(receipt.success).toBe(true)
    expect(await w.tokenBalance(to)).toBe(5_000_000n)
    expect((await w.pub.getCode({ address: owner.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`)
    expect(await w.pub.getBalance({ address: owner.address })).toBe(0n)
    expect(before - (await w.deposit())).toBe(receipt.actualGasCost)
    const mine = await w.f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    expect(mine.status).toBe(200)
    const line = mine.body.networks.find((n: { network: string }) => n.network === 'ethereum')
    expect(line.dayOperations).toBe(1)
    expect(BigInt(line.dayWei)).toBeGreaterThanOrEqual(receipt.actualGasCost)
    const tenantUsage = await w.f.api.get(`/v1/admin/tenants/${w.tenant.id}/gas-usage?userId=${u.id}`, { token: w.admin.accessToken })
    expect(tenantUsage.status).toBe(200)
    expect(tenantUsage.body.networks[0].dayOperations).toBe(1)
  }, 60_000)

  test('refusals: another tenant\'s wallet, a call outside the allowlist, a cost above the per-operation maximum, a policy that is off', async () => {
    await w.setPolicy({ enabled: true, operations: ['send', 'dapp'], allowlist: [{ contract: w.aa.node.tokenAddress, selectors: ['0x095ea7b3'] }], maxPerOperationWei: DRAFT_COST.toString() })
    const u = await w.f.user(w.tenant)
    const owner = privateKeyToAccount(generatePrivateKey())
    await clientWallet(w.f.api, u, owner)
    // a wallet of a user of another tenant
    const stranger = await w.f.user(w.other)
    const theirs = privateKeyToAccount(generatePrivateKey())
    await clientWallet(w.f.api, stranger, theirs)
    const to = privateKeyToAccount(generatePrivateKey()).address
    expect((await pm(u, 'pm_getPaymasterData', await draftOp(theirs, [transfer(to, 1n)]))).error?.data?.code).toBe('GAS_SENDER_NOT_ALLOWED')
    // transferFrom is not on the allowlist (approve is)
    const transferFrom = { to: w.aa.node.tokenAddress, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [to, to, 1n] }) }
    expect((await pm(u, 'pm_getPaymasterData', await draftOp(owner, [transferFrom]))).error?.data?.code).toBe('GAS_OPERATION_NOT_SPONSORED')
    const approve = { to: w.aa.node.tokenAddress, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [to, 1n] }) }
    expect((await pm(u, 'pm_getPaymasterData', await draftOp(owner, [approve]))).result?.paymaster).toBe(w.aa.paymaster)
    await w.setPolicy({ enabled: true, maxPerOperationWei: (DRAFT_COST - 1n).toString() })
    const above = await pm(u, 'pm_getPaymasterData', await draftOp(owner, [transfer(to, 1n)], 1n))
    expect(above.error?.data).toEqual({ status: 403, code: 'GAS_COST_ABOVE_LIMIT' })
    await w.setPolicy({ enabled: false })
    expect((await pm(u, 'pm_getPaymasterStubData', await draftOp(owner, [transfer(to, 1n)], 2n))).error?.data?.code).toBe('GAS_POLICY_OFF')
    // without a token: 401
    const anon = await fetch(rpcUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pm_getPaymasterData', params: [] }) })
    expect(anon.status).toBe(401)
  })

  test('a daily limit that covers three operations: of ten fired at once, three are signed and seven refused with GAS_USER_DAILY_LIMIT', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'], maxPerOperationWei: null, userDailyLimitWei: (DRAFT_COST * 3n).toString() })
    const u = await w.f.user(w.tenant)
    const owner = privateKeyToAccount(generatePrivateKey())
    await clientWallet(w.f.api, u, owner)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const answers = await Promise.all(Array.from({ length: 10 }, async (_, i) => pm(u, 'pm_getPaymasterData', await draftOp(owner, [transfer(to, 1n)], BigInt(i) << 64n))))
    expect(answers.filter((a) => a.result).length).toBe(3)
    const refused = answers.filter((a) => a.error)
    expect(refused.length).toBe(7)
    for (const r of refused) expect(r.error!.data).toEqual({ status: 429, code: 'GAS_USER_DAILY_LIMIT' })
    const usage = await w.f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    expect(usage.body.networks[0]).toMatchObject({ dayOperations: 3, dayWei: (DRAFT_COST * 3n).toString() })
    await w.setPolicy({ enabled: true, userDailyLimitWei: null })
  }, 30_000)

  test('a paymaster signature replayed on another operation fails on chain (the bundler refuses it: AA34)', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'], maxPerOperationWei: null, userDailyLimitWei: null })
    const u = await w.f.user(w.tenant)
    const { owner, account, bundler } = await nonCustodial(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    // the first operation, sponsored properly (delegates the EOA)
    const first = await bundler.sendUserOperation({ account, authorization: await authorize(owner), calls: [transfer(to, 1_000_000n)] })
    await bundler.waitForUserOperationReceipt({ hash: first, timeout: 30_000 })
    // a signature for one operation...
    const signed = await bundler.prepareUserOperation({ account, calls: [transfer(to, 1n)] })
    // ...put on another (more USDC to someone else), without asking the paymaster
    const plain = createBundlerClient({ client: w.pub as never, transport: http(w.aa.bundler.url) })
    const thief = privateKeyToAccount(generatePrivateKey()).address
    const other = { ...signed, callData: await account.encodeCalls([{ ...transfer(thief, 4_000_000n), value: 0n }]) }
    other.signature = await account.signUserOperation(other)
    const err = await plain.sendUserOperation({ ...other, entryPointAddress: account.entryPoint.address } as never).catch((e: Error) => e)
    expect(err).toBeInstanceOf(Error)
    expect(String((err as Error).message)).toMatch(/AA34|signature/i)
    expect(await w.tokenBalance(thief)).toBe(0n)
  }, 60_000)
})
