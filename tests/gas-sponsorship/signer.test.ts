/**
 * The paymaster signer's key sealed in the database: without one, sponsorship is off and says
 * so; `slipway paymaster signer` stores the key read from standard input (or generates one),
 * prints its address and never the key; the database file never holds the key in clear; a
 * sponsored send is signed with it and runs; PAYMASTER_SIGNER_PRIVATE_KEY is imported, sealed,
 * by its first use on a network.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { gasSponsorship, hasPaymasterSigner } from '@/modules/gas-sponsorship'
import { paymasterSigner } from '@/ops/paymaster-signer'
import { reseal } from '@/ops/reseal'
import { custodialWallet, USDC_MAINNET, waitFor } from '../transactions/helpers'
import { gasWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-signer-'))
// no key in the environment, and a database file whose bytes the test reads
const w = gasWorld({ jobs: true, env: { PAYMASTER_SIGNER_PRIVATE_KEY: '', DATABASE_URL: `file:${join(dir, 'app.db')}` } })

beforeAll(async () => {
  await w.aa.node.installMulticall3()
  await w.aa.node.placeToken(USDC_MAINNET)
}, 30_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** every byte the database keeps on disk (the file and its WAL), as text to search */
const onDisk = () => readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString('latin1')).join('\n').toLowerCase()

describe('paymaster signer', () => {
  test('no signer: off and says so; the CLI seals the key, prints only its address; a sponsored send is signed with it', async () => {
    const policy = await w.f.api.put(`/v1/admin/tenants/${w.tenant.id}/gas-policies/ethereum`, { enabled: true, operations: ['send'] }, { token: w.admin.accessToken })
    expect(policy.status).toBe(200)
    expect(policy.body.sponsorshipAvailable).toBe(false)
    expect(await hasPaymasterSigner(w.t.deps, 'ethereum')).toBe(false)
    const u = await w.f.user(w.tenant)
    const wallet = await custodialWallet(w.f.api, u)
    await w.aa.node.sendToken(wallet.address, 5_000_000n, USDC_MAINNET)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const body = { walletId: wallet.id, chain: 'ethereum', toAddress: to, amount: '1000000', tokenAddress: USDC_MAINNET }

    const lines: string[] = []
    const say = (l: string) => lines.push(l)
    const key = w.aa.paymasterSignerKey
    expect(await paymasterSigner(w.t.deps, [], async () => key, say)).toBe(2)
    expect(await paymasterSigner(w.t.deps, ['--network', 'solana'], async () => key, say)).toBe(2)
    expect(await paymasterSigner(w.t.deps, ['--network', 'ethereum'], async () => 'not a key', say)).toBe(2)
    expect(await hasPaymasterSigner(w.t.deps, 'ethereum')).toBe(false)
    expect(await paymasterSigner(w.t.deps, ['--network', 'ethereum'], async () => `${key}\n`, say)).toBe(0)
    const address = privateKeyToAccount(key).address
    expect(lines.at(-1)).toContain(address)
    expect(lines.join('\n').toLowerCase()).not.toContain(key.slice(2).toLowerCase())
    // a second one is refused without --replace
    expect(await paymasterSigner(w.t.deps, ['--network', 'ethereum', '--generate'], async () => '', say)).toBe(1)

    const row = await w.t.deps.database.client.execute(`SELECT address, key_sealed FROM paymaster_signers WHERE network = 'ethereum'`)
    expect(String(row.rows[0]!.address)).toBe(address.toLowerCase())
    expect(String(row.rows[0]!.key_sealed)).toMatch(/^v1\./)
    expect(onDisk()).not.toContain(key.slice(2).toLowerCase())
    // `slipway reseal` knows the column (nothing to move: it is under the current version)
    expect((await reseal(w.t.deps)).columns['paymaster_signers.key_sealed']).toEqual({ resealed: 0, failed: 0 })

    const listed = await w.f.api.get(`/v1/admin/tenants/${w.tenant.id}/gas-policies`, { token: w.admin.accessToken })
    expect(listed.body.data[0].sponsorshipAvailable).toBe(true)
    const ok = await w.f.api.post('/v1/transactions/', body, { token: u.accessToken })
    expect(ok.status).toBe(201)
    expect(ok.body.sponsored).toBe(true)
    const done = await waitFor(() => w.f.api.get(`/v1/transactions/${ok.body.id}`, { token: u.accessToken }), (r) => r.body?.status !== 'pending', 45_000)
    expect(done.body.status).toBe('confirmed')
    expect(await w.pub.readContract({ address: USDC_MAINNET, abi: erc20Abi, functionName: 'balanceOf', args: [to] })).toBe(1_000_000n)
    expect(onDisk()).not.toContain(key.slice(2).toLowerCase())
  }, 120_000)

  test('--generate stores a new key and prints its address; PAYMASTER_SIGNER_PRIVATE_KEY is imported sealed on first use', async () => {
    const lines: string[] = []
    expect(await paymasterSigner(w.t.deps, ['--network', 'base', '--generate'], async () => '', (l) => lines.push(l))).toBe(0)
    const generated = lines.at(-1)!.match(/0x[0-9a-fA-F]{40}/)![0]
    const stored = await w.t.deps.database.client.execute(`SELECT address FROM paymaster_signers WHERE network = 'base'`)
    expect(String(stored.rows[0]!.address)).toBe(generated.toLowerCase())

    // another app process on the same database, with a key in its environment: the first use seals it for sepolia
    const imported = generatePrivateKey()
    const c = w.t.deps.config
    const deps = { ...w.t.deps, config: {
      ...c, paymasterSignerPrivateKey: imported, bundlerUrls: { ...c.bundlerUrls, sepolia: w.aa.bundler.url },
      paymasterAddresses: { ...c.paymasterAddresses, sepolia: w.aa.paymaster }, rpcUrls: { ...c.rpcUrls, sepolia: w.aa.node.url },
    } }
    const sponsor = await gasSponsorship.sponsorFor(deps, null, 'sepolia')
    expect(sponsor.signer.address).toBe(privateKeyToAccount(imported).address)
    const row = await w.t.deps.database.client.execute(`SELECT address, key_sealed FROM paymaster_signers WHERE network = 'sepolia'`)
    expect(String(row.rows[0]!.address)).toBe(privateKeyToAccount(imported).address.toLowerCase())
    expect(String(row.rows[0]!.key_sealed)).not.toContain(imported.slice(2))
    // the stored Ethereum signer is not replaced by the environment's key
    expect((await gasSponsorship.sponsorFor(deps, null, 'ethereum')).signer.address).toBe(privateKeyToAccount(w.aa.paymasterSignerKey).address)
    expect(onDisk()).not.toContain(imported.slice(2).toLowerCase())
  }, 60_000)
})
