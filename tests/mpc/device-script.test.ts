/**
 * scripts/mpc-device.ts as a new user runs it (docs/mpc.md, "Try it on the devnet"), each
 * command a process of its own against a Slipway served on a port with a local chain as
 * Sepolia and the sandbox faucet on it: register, create (the shares in an ignored folder,
 * never replaced without asking), faucet, send from the saved wallet (mined), show.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { reader } from '@tests/transactions/helpers'
import { FUNDER_KEY } from '@tests/helpers/evm-node'
import { mpcWorld, type MpcWorld } from './world'

const ROOT = join(import.meta.dir, '../..')
const TO: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0004'
let w: MpcWorld
let sharesDir: string
let env: Record<string, string>

beforeAll(async () => {
  w = await mpcWorld({ env: (chain) => ({ SANDBOX_FAUCET_RPC_URL: chain.url, SANDBOX_FAUCET_PRIVATE_KEY: FUNDER_KEY }) })
  sharesDir = mkdtempSync(join(tmpdir(), 'slipway-mpc-shares-'))
  env = {
    SLIPWAY_URL: w.server.url, SLIPWAY_API_KEY: w.tenant.apiKey, SLIPWAY_API_SECRET: w.tenant.apiSecret,
    SLIPWAY_USERNAME: `device${Date.now() % 1_000_000}`, SLIPWAY_PASSWORD: 'Str0ng-Passw0rd', MPC_SHARES_DIR: sharesDir,
    // the engine the server runs (docs/mpc.md, "Try it on the devnet")
    MPC_ENGINE: process.env.MPC_ENGINE!,
  }
}, 30_000)
afterAll(async () => w?.stop())

async function script(...args: string[]) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'scripts/mpc-device.ts'), ...args], {
    cwd: sharesDir, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', ...env },
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { out, err, code }
}

describe('scripts/mpc-device.ts', () => {
  test('register, create, faucet, send: the wallet is made once, its shares kept in the profile folder, and a send from it is mined', async () => {
    expect((await script('register')).code).toBe(0)
    const created = await script('create', 'sepolia')
    expect(created.err).toBe('')
    expect(created.code).toBe(0)
    const address = created.out.match(/wallet \S+ at (0x[0-9a-fA-F]{40})/)![1]! as Address
    const profile = join(sharesDir, env.SLIPWAY_USERNAME!)
    expect(readdirSync(profile).sort()).toEqual(['backup-share.sealed', 'device-share.bin', 'wallet.json'])
    for (const f of readdirSync(profile)) expect(statSync(join(profile, f)).mode & 0o777).toBe(0o600)
    const saved = JSON.parse(readFileSync(join(profile, 'wallet.json'), 'utf8'))
    expect(saved).toMatchObject({ address, chain: 'sepolia' })
    const deviceShare = readFileSync(join(profile, 'device-share.bin'))

    // a second create, without a terminal to ask on: refused, nothing replaced
    const again = await script('create', 'sepolia')
    expect(again.code).toBe(1)
    expect(again.err).toContain('nothing was replaced')
    expect(readFileSync(join(profile, 'device-share.bin')).equals(deviceShare)).toBe(true)
    expect(JSON.parse(readFileSync(join(profile, 'wallet.json'), 'utf8'))).toEqual(saved)

    const faucet = await script('faucet')
    expect(faucet.err).toBe('')
    expect(faucet.out).toMatch(/faucet: \d+ wei in 0x[0-9a-f]{64}/)

    // a later run sends from the saved wallet
    const before = await reader(w.chain.url).balance(TO)
    const sent = await script('send', TO, '1000000000000000')
    expect(sent.err).toBe('')
    expect(sent.out).toMatch(new RegExp(`sent 1000000000000000 from ${address} to ${TO}: transaction \\S+, 0x[0-9a-f]{64}`))
    expect(sent.out).toContain('status: confirmed')
    expect(await reader(w.chain.url).balance(TO)).toBe(before + 1_000_000_000_000_000n)

    const shown = await script('show')
    expect(shown.code).toBe(0)
    expect(JSON.parse(shown.out)).toMatchObject({ walletId: saved.walletId, address })
  }, 120_000)

  test('the shares folder is ignored by git', () => {
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('.mpc-shares/')
  })
})
