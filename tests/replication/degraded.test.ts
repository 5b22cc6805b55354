/**
 * Degraded, not down: an edge on an embedded replica while its primary is stopped keeps
 * answering reads from the replica, reports itself stale with the lag, refuses writes
 * with 503 quickly, and takes writes again once the primary is back, without a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, type RunningProcess } from '@tests/helpers/process'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { waitFor } from '@tests/transactions/helpers'
import { startEdge } from './helpers'

let sqld: Sqld
let chain: LocalChain
let edge: RunningProcess
let api: Api

beforeAll(async () => {
  sqld = await startSqld()
  chain = await startLocalChain({ chainId: 1, dbPath: mkdtempSync(join(sqld.dir, 'chain-')) })
  edge = await startEdge(sqld, { DATABASE_SYNC_INTERVAL_MS: '200', DATABASE_TIMEOUT_MS: '1500', RPC_URL_ETHEREUM: chain.url, RPC_TIMEOUT_MS: '3000' })
  api = new Api(edge.url)
}, 60_000)
afterAll(async () => {
  await edge?.stop()
  await chain?.stop()
  await sqld?.stop()
})

describe('an edge whose primary is stopped', () => {
  test('reads from the replica, stale with its lag, writes 503, back to normal when the primary returns', async () => {
    const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
    const tenant = (await api.post('/v1/admin/tenants', { name: 'degraded' }, { token: admin })).body
    const reg = await api.post('/v1/auth/register', { username: 'degraded_user', email: 'd@example.com', password: 'Degr-passw0rd', wallet: { option: 'create', chain: 'ethereum' } }, { signedBy: tenant })
    expect(reg.status).toBe(201)
    const token = reg.body.accessToken as string
    const userId = reg.body.user.id as string
    const walletId = reg.body.wallet.id as string
    await chain.sendNative(reg.body.wallet.address, 10n ** 18n)
    const sent = await api.post('/v1/transactions/', { walletId, chain: 'ethereum', toAddress: privateKeyToAccount(generatePrivateKey()).address, amount: '5' }, { token })
    expect(sent.status).toBe(201)
    const ready = await api.get('/health/ready')
    expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok', replica: 'ok' }, replica: { state: 'fresh', primaryReachable: true } })

    await sqld.halt()
    const stale = await waitFor(() => api.get('/health/ready'), (r) => r.body?.checks?.replica === 'stale', 5000)
    expect(stale.status).toBe(200)
    expect(stale.body).toMatchObject({ status: 'ready', checks: { database: 'ok', replica: 'stale' }, replica: { state: 'stale', primaryReachable: false } })
    await Bun.sleep(300)
    const later = (await api.get('/health/ready')).body.replica
    expect(later.lagMs).toBeGreaterThanOrEqual(300)

    // Reads: profile, wallets, transaction history, docs, liveness.
    expect((await api.get(`/v1/users/${userId}`, { token })).body).toMatchObject({ id: userId, username: 'degraded_user' })
    const wallets = await api.get('/v1/wallets/', { token })
    expect(wallets.status).toBe(200)
    expect(JSON.stringify(wallets.body)).toContain(walletId)
    const history = await api.get('/v1/transactions/', { token })
    expect(history.status).toBe(200)
    expect(JSON.stringify(history.body)).toContain(sent.body.id)
    expect((await api.get(`/v1/transactions/${sent.body.id}`, { token })).body).toMatchObject({ id: sent.body.id, nonce: 0 })
    expect((await api.get('/v1/docs/json')).status).toBe(200)
    expect((await api.get('/health')).body).toEqual({ status: 'ok' })
    const metrics = await api.get('/metrics', { token: admin })
    expect(metrics.text).toContain('slipway_replica_primary_reachable 0')
    const lag = Number(/^slipway_replica_lag_seconds (\S+)$/m.exec(metrics.text)?.[1])
    expect(lag).toBeGreaterThan(0.2)

    // Writes: 503 with a clear message, quickly (no hang), for bearer, signed and admin requests.
    const t0 = performance.now()
    const write = await api.post('/v1/wallets/', { chain: 'ethereum' }, { token })
    expect(write.status).toBe(503)
    // the wallet routes answer in the spec's `{ detail, code }` style
    expect(write.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE' })
    expect(write.body.detail).toContain('The primary database cannot be reached')
    expect(performance.now() - t0).toBeLessThan(3000)
    const signed = await api.post('/v1/auth/register', { username: 'degraded_two', email: 'd2@example.com', password: 'Degr-passw0rd' }, { signedBy: tenant })
    expect(signed).toMatchObject({ status: 503, body: { error: 'ServiceUnavailableError' } })
    expect(signed.body.message).toContain('changes are refused until the primary is back')
    const login = await api.post('/v1/auth/login', { username: 'degraded_user', password: 'Degr-passw0rd' }, { signedBy: tenant })
    expect(login.status).toBe(503)

    // The primary returns: same process, writes and freshness come back.
    await sqld.restart()
    const fresh = await waitFor(() => api.get('/health/ready'), (r) => r.body?.checks?.replica === 'ok', 5000)
    expect(fresh.body.replica).toMatchObject({ state: 'fresh', primaryReachable: true })
    const again = await api.post('/v1/auth/register', { username: 'degraded_two', email: 'd2@example.com', password: 'Degr-passw0rd' }, { signedBy: tenant })
    expect(again.status).toBe(201)
    expect((await api.post('/v1/wallets/', { chain: 'ethereum' }, { token })).status).toBe(201)
    expect((await api.get('/metrics', { token: admin })).text).toContain('slipway_replica_primary_reachable 1')
  }, 60_000)
})
