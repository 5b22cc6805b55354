/**
 * ERC-7677 sponsorships settled by the job: an operation the app sent through the bundler counts
 * what it cost (the bundler's receipt) instead of its maximum; one signed and never sent is
 * released once its signature expired, so the user's daily limit has room again.
 */
import { describe, expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Clock } from '@/lib/clock'
import { formatUsd, parseUsd, weiToUsd } from '@/modules/gas-sponsorship/usd'
import { clientWallet, waitFor } from '../transactions/helpers'
import { erc7677Client } from './erc7677-client'
import { gasWorld } from './world'

// the wall clock, moved ahead by the test to run past a signature's end without waiting for it
let ahead = 0
const clock: Clock = { now: () => Date.now() + ahead }
const w = gasWorld({ jobs: true, clock, env: { PAYMASTER_VALIDITY_SECONDS: '60' } })
const { nonCustodial, transfer, authorize, pm, draftOp, DRAFT_COST } = erc7677Client(w)

const sponsorships = async (userId: string) => (await w.t.deps.database.client.execute({
  sql: 'SELECT status, max_cost_wei, actual_cost_wei FROM gas_sponsorships WHERE user_id = ? ORDER BY created_at', args: [userId],
})).rows.map((r) => ({ status: String(r.status), max: BigInt(String(r.max_cost_wei)), actual: r.actual_cost_wei === null ? null : BigInt(String(r.actual_cost_wei)) }))

describe('ERC-7677 sponsorships settled', () => {
  test('an operation sent through the bundler: usage counts its maximum while in flight, then what the receipt says it cost', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'], userDailyLimitWei: null, maxPerOperationWei: null, tenantMonthlyBudgetWei: null })
    const u = await w.f.user(w.tenant)
    const { owner, account, bundler } = await nonCustodial(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const hash = await bundler.sendUserOperation({ account, authorization: await authorize(owner), calls: [transfer(to, 1_000_000n)] })
    const receipt = await bundler.waitForUserOperationReceipt({ hash, timeout: 30_000 })
    expect(receipt.success).toBe(true)
    const [reserved] = await sponsorships(u.id)
    expect(reserved!.max).toBeGreaterThan(receipt.actualGasCost)
    const usage = () => w.f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    // the job looks 5 s after the signature
    const settled = await waitFor(usage, (r) => r.body.networks[0]?.dayWei === receipt.actualGasCost.toString(), 30_000)
    expect(settled.body.networks[0]).toMatchObject({ dayWei: receipt.actualGasCost.toString(), dayOperations: 1, monthWei: receipt.actualGasCost.toString() })
    expect(await sponsorships(u.id)).toEqual([{ status: 'settled', max: reserved!.max, actual: receipt.actualGasCost }])
    // in USD too: at the sandbox price of ETH recorded when it was signed
    const usd = formatUsd(weiToUsd(receipt.actualGasCost, parseUsd('3240')))
    const row = (await w.t.deps.database.client.execute({ sql: 'SELECT usd_rate, actual_cost_usd FROM gas_sponsorships WHERE user_id = ?', args: [u.id] })).rows[0]!
    expect({ rate: row.usd_rate, actual: row.actual_cost_usd }).toEqual({ rate: '3240', actual: usd })
    expect(settled.body.networks[0]).toMatchObject({ dayUsd: usd, monthUsd: usd })
  }, 60_000)

  test('signed and never sent: held until the signature expires, then released, and the daily limit has room again', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'], userDailyLimitWei: DRAFT_COST.toString(), maxPerOperationWei: null })
    const u = await w.f.user(w.tenant)
    const owner = privateKeyToAccount(generatePrivateKey())
    await clientWallet(w.f.api, u, owner)
    const to = privateKeyToAccount(generatePrivateKey()).address
    expect((await pm(u, 'pm_getPaymasterData', await draftOp(owner, [transfer(to, 1n)]))).result?.paymaster).toBe(w.aa.paymaster)
    // the limit covers one: a second is refused while the first is held
    expect((await pm(u, 'pm_getPaymasterData', await draftOp(owner, [transfer(to, 1n)], 1n << 64n))).error?.data?.code).toBe('GAS_USER_DAILY_LIMIT')
    const usage = () => w.f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    // the job's looks before the end find no receipt and keep it
    await Bun.sleep(6_000)
    expect(await sponsorships(u.id)).toEqual([{ status: 'reserved', max: DRAFT_COST, actual: null }])
    // past the signature's end (60 s) and the grace (30 s): released
    ahead = 95_000
    const released = await waitFor(usage, (r) => r.body.networks[0]?.dayOperations === 0, 30_000)
    expect(released.body.networks[0]).toMatchObject({ dayWei: '0', dayOperations: 0 })
    expect(await sponsorships(u.id)).toEqual([{ status: 'released', max: DRAFT_COST, actual: null }])
    expect((await pm(u, 'pm_getPaymasterData', await draftOp(owner, [transfer(to, 1n)], 2n << 64n))).result?.paymaster).toBe(w.aa.paymaster)
  }, 60_000)
})
