/**
 * `npm run devnet`'s chain (scripts/devnet/chain.ts) and the sandbox faucet that funds wallets
 * on it: the test stablecoin at the registry's Sepolia USDC address with EIP-2612 permit and
 * EIP-3009 transferWithAuthorization, a chain that survives a restart without being set up
 * twice, and `POST /v1/sandbox/faucet` giving a user's wallet gas and test USDC so a send
 * confirms with nothing funded by hand.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, defineChain, http, keccak256, parseSignature, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEVNET_KEYS, DEVNET_USDC, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import token from '../../scripts/devnet/SandboxUSD.json'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory } from '@tests/helpers/factories'
import { systemClock } from '@/lib/clock'

const dir = mkdtempSync(join(tmpdir(), 'slipway-devnet-'))
let devnet: Devnet
let t: TestApp
let f: Factory

const chainOf = (url: string) => defineChain({ id: 11155111, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
const clients = (url: string, key: Hex) => ({
  pub: createPublicClient({ chain: chainOf(url), transport: http(url) }),
  wallet: createWalletClient({ chain: chainOf(url), transport: http(url), account: privateKeyToAccount(key) }),
})
const usdc = (url: string, who: Address) => clients(url, DEVNET_KEYS.funder).pub.readContract({ address: DEVNET_USDC, abi: token.abi, functionName: 'balanceOf', args: [who] }) as Promise<bigint>
async function write(url: string, key: Hex, functionName: string, args: unknown[]) {
  const { pub, wallet } = clients(url, key)
  const hash = await wallet.writeContract({ address: DEVNET_USDC, abi: token.abi, functionName, args } as never)
  return pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}
const domain = { name: 'USDC', version: '2', chainId: 11155111, verifyingContract: DEVNET_USDC } as const

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  t = await makeApp({ clock: systemClock, jobs: true, env: devnet.env })
  f = new Factory(t)
}, 30_000)
afterAll(async () => {
  await t.close()
  await devnet.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the devnet chain', () => {
  test('the test stablecoin at the registry\'s Sepolia USDC address: 6 decimals, EIP-2612 permit, EIP-3009 transferWithAuthorization', async () => {
    const { pub } = clients(devnet.url, DEVNET_KEYS.funder)
    expect(await pub.getChainId()).toBe(11155111)
    expect(await pub.readContract({ address: DEVNET_USDC, abi: token.abi, functionName: 'decimals' })).toBe(6)
    const owner = privateKeyToAccount(generatePrivateKey())
    const spender = privateKeyToAccount(DEVNET_KEYS.funder)
    await write(devnet.url, DEVNET_KEYS.funder, 'mint', [owner.address, 50_000_000n])

    // permit: the owner signs, the spender submits and then transfers
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
    const permit = parseSignature(await owner.signTypedData({
      domain, primaryType: 'Permit',
      types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
      message: { owner: owner.address, spender: spender.address, value: 10_000_000n, nonce: 0n, deadline },
    }))
    await write(devnet.url, DEVNET_KEYS.funder, 'permit', [owner.address, spender.address, 10_000_000n, deadline, Number(permit.v), permit.r, permit.s])
    const to = privateKeyToAccount(generatePrivateKey()).address
    await write(devnet.url, DEVNET_KEYS.funder, 'transferFrom', [owner.address, to, 10_000_000n])
    expect(await usdc(devnet.url, to)).toBe(10_000_000n)

    // transferWithAuthorization: the owner signs, anyone submits, once
    const nonce = keccak256(toHex(crypto.randomUUID()))
    const auth = { from: owner.address, to, value: 5_000_000n, validAfter: 0n, validBefore: deadline, nonce }
    const signature = await owner.signTypedData({
      domain, primaryType: 'TransferWithAuthorization',
      types: { TransferWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] },
      message: auth,
    })
    const sig = parseSignature(signature)
    const args = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(sig.v), sig.r, sig.s]
    const { wallet } = clients(devnet.url, DEVNET_KEYS.faucet)
    const abi = token.abi.filter((x: { name?: string; inputs?: unknown[] }) => x.name !== 'transferWithAuthorization' || x.inputs!.length === 9)
    await clients(devnet.url, DEVNET_KEYS.faucet).pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: DEVNET_USDC, abi, functionName: 'transferWithAuthorization', args } as never) })
    expect(await usdc(devnet.url, to)).toBe(15_000_000n)
    expect(await usdc(devnet.url, owner.address)).toBe(35_000_000n)
    // the same authorization again: refused by the contract
    await expect(clients(devnet.url, DEVNET_KEYS.faucet).pub.simulateContract({ account: privateKeyToAccount(DEVNET_KEYS.faucet), address: DEVNET_USDC, abi, functionName: 'transferWithAuthorization', args } as never))
      .rejects.toThrow(/authorization used/)
  }, 30_000)

  test('a restart keeps the chain and sets nothing up twice', async () => {
    const simulator = privateKeyToAccount(DEVNET_KEYS.simulator).address
    const before = await usdc(devnet.url, simulator)
    expect(before).toBe(1_000_000_000_000_000n)
    const again = await startDevnet({ port: 0, dbPath: join(dir, 'chain-2'), blockTime: 0 })
    await again.stop()
    // the first chain's own folder, reopened
    await devnet.stop()
    devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
    expect(await usdc(devnet.url, simulator)).toBe(before)
    await t.close()
    t = await makeApp({ clock: systemClock, jobs: true, env: devnet.env })
    f = new Factory(t)
  }, 30_000)
})

describe('npm run devnet', () => {
  test('writes the env file with exactly startDevnet()\'s keys and the x402 merchant\'s route, and npm start reads it after .env and before .env.local', async () => {
    const root = join(import.meta.dir, '..', '..')
    // npm start's env files, in order: .env.devnet after .env, .env.local after it (each overrides the one before)
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.devnet).toBe('bun scripts/devnet.ts')
    for (const script of ['start', 'dev']) {
      const files = [...pkg.scripts[script]!.matchAll(/--env-file[= ](\S+)/g)].map((m) => m[1])
      expect(files, script).toEqual(['.env', '.env.devnet', '.env.local'])
    }
    // the script itself, on free ports, writing into a temporary folder
    const out = mkdtempSync(join(tmpdir(), 'slipway-npm-devnet-'))
    const envFile = join(out, '.env.devnet')
    const proc = Bun.spawn([process.execPath, join(root, 'scripts/devnet.ts'), '--port', '0', '--env-file', envFile, '--dir', join(out, 'chains'), '--block-time', '0'], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
    try {
      // two alto bundlers start (Node processes): allow for a loaded machine
      const deadline = Date.now() + 45_000
      while (!existsSync(envFile) && proc.exitCode === null && Date.now() < deadline) await Bun.sleep(100)
      if (!existsSync(envFile)) {
        proc.kill()
        throw new Error(`no ${envFile} after ${proc.exitCode === null ? '45 s' : `exit ${proc.exitCode}`}: ${await new Response(proc.stderr).text()}`)
      }
      const written = Object.fromEntries(readFileSync(envFile, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
      const sponsorship = ['BUNDLER_URL_SEPOLIA', 'PAYMASTER_ADDRESS_SEPOLIA', 'BUNDLER_URL_GNOSIS_CHIADO', 'PAYMASTER_ADDRESS_GNOSIS_CHIADO', 'PAYMASTER_SIGNER_PRIVATE_KEY']
      const set = [...Object.keys(devnet.env), 'RPC_URL_SOLANA_DEVNET', 'WEBHOOK_DEV_ROUTES', ...sponsorship]
      expect(Object.keys(written).sort()).toEqual([...set, 'SLIPWAY_DEVNET', 'SLIPWAY_DEVNET_SETTINGS'].sort())
      // the file and the names it set, for the server's start-up line "devnet settings read"
      expect(written.SLIPWAY_DEVNET).toBe(envFile)
      expect(written.SLIPWAY_DEVNET_SETTINGS!.split(',').sort()).toEqual(set.sort())
      // gas sponsorship on both EVM nodes: each alto answers for EntryPoint v0.8 on its own node's chain
      for (const [bundler, chainId] of [[written.BUNDLER_URL_SEPOLIA!, 11155111], [written.BUNDLER_URL_GNOSIS_CHIADO!, 10200]] as const) {
        const call = async (method: string) => ((await (await fetch(bundler, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) })).json()) as { result: any }).result
        expect((await call('eth_supportedEntryPoints') as string[]).map((a) => a.toLowerCase())).toContain('0x4337084d9e255ff0702461cf8895ce9e3b5ff108')
        expect(Number(await call('eth_chainId'))).toBe(chainId)
      }
      expect(await createPublicClient({ transport: http(written.RPC_URL_GNOSIS_CHIADO) }).getCode({ address: written.PAYMASTER_ADDRESS_GNOSIS_CHIADO as `0x${string}` })).toBeTruthy()
      // the Solana endpoint (tests/devnet/solana.test.ts covers it): a node of its own on a free port
      const health = await fetch(written.RPC_URL_SOLANA_DEVNET!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}' })
      expect(await health.json()).toMatchObject({ result: 'ok' })
      // https://x402.devnet.test reaches the devnet's x402 merchant, which asks to be paid
      const [host, origin] = written.WEBHOOK_DEV_ROUTES!.split('=')
      expect(host).toBe('x402.devnet.test')
      const paid = await fetch(`${origin}/weather`)
      expect([paid.status, paid.headers.has('payment-required')]).toEqual([402, true])
      // its own nodes: free ports, not the default 8545 and 8546
      expect(written.RPC_URL_SEPOLIA).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(written.RPC_URL_GNOSIS_CHIADO).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(written.RPC_URL_GNOSIS_CHIADO).not.toBe(written.RPC_URL_SEPOLIA)
      // the second node stands in for gnosis-chiado: nothing of the devnet's names gnosis mainnet
      expect(written.RPC_URL_GNOSIS).toBeUndefined()
      expect(written.SANDBOX_SWAP_CHAINS).toBe('10200')
      expect(await createPublicClient({ transport: http(written.RPC_URL_SEPOLIA) }).getChainId()).toBe(11155111)
      expect(await createPublicClient({ transport: http(written.RPC_URL_GNOSIS_CHIADO) }).getChainId()).toBe(10200)
      // stopped, it writes both chains to their state files (anvil's --state), kept for the next start
      proc.kill('SIGTERM')
      expect(await proc.exited).toBe(0)
      expect([existsSync(join(out, 'chains', 'state.json')), existsSync(join(out, 'chains', 'state-chiado.json'))]).toEqual([true, true])
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(out, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('POST /v1/sandbox/faucet', () => {
  test('gas up to 0.05 ETH and test USDC for the caller\'s wallet; a send from it then confirms', async () => {
    const tenant = await f.tenant()
    const u = await f.user(tenant)
    const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
    expect(w.status).toBe(201)
    const res = await f.api.post('/v1/sandbox/faucet', { walletId: w.body.id, stablecoin: '100000000' }, { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ walletId: w.body.id, network: 'sepolia', native: { amount: '50000000000000000' }, stablecoin: { amount: '100000000', symbol: 'USDC' } })
    expect(await usdc(devnet.url, w.body.address)).toBe(100_000_000n)
    // already topped up: no more gas sent
    const again = await f.api.post('/v1/sandbox/faucet', { walletId: w.body.id }, { token: u.accessToken })
    expect(again.body).toMatchObject({ native: null, stablecoin: null })
    const sent = await f.api.post('/v1/transactions/', { walletId: w.body.id, chain: 'sepolia', toAddress: privateKeyToAccount(generatePrivateKey()).address, amount: '10000000', tokenAddress: DEVNET_USDC }, { token: u.accessToken })
    expect(sent.status).toBe(201)
    let status = ''
    for (let i = 0; i < 100 && status !== 'confirmed'; i++) {
      status = (await f.api.get(`/v1/transactions/${sent.body.id}/status`, { token: u.accessToken })).body.status
      if (status !== 'confirmed') await Bun.sleep(50)
    }
    expect(status).toBe('confirmed')
    expect(await usdc(devnet.url, w.body.address)).toBe(90_000_000n)
  }, 30_000)

  test('another user\'s or tenant\'s wallet: 404 like an unknown one; bad amounts: 400', async () => {
    const tenant = await f.tenant()
    const owner = await f.user(tenant)
    const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: owner.accessToken })
    const other = await f.user(await f.tenant())
    const theirs = await f.api.post('/v1/sandbox/faucet', { walletId: w.body.id }, { token: other.accessToken })
    const unknown = await f.api.post('/v1/sandbox/faucet', { walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f' }, { token: other.accessToken })
    expect(theirs.status).toBe(404)
    expect(theirs.body).toEqual(unknown.body)
    expect((await f.api.post('/v1/sandbox/faucet', { walletId: w.body.id, stablecoin: '1.5' }, { token: owner.accessToken })).status).toBe(400)
    expect((await f.api.post('/v1/sandbox/faucet', { walletId: w.body.id, stablecoin: '10000000001' }, { token: owner.accessToken })).status).toBe(400)
    const mainnet = await f.api.post('/v1/wallets/', { chain: 'ethereum' }, { token: owner.accessToken })
    const refused = await f.api.post('/v1/sandbox/faucet', { walletId: mainnet.body.id }, { token: owner.accessToken })
    expect(refused.status).toBe(400)
    expect(await usdc(devnet.url, w.body.address)).toBe(0n)
  }, 30_000)

  test('without the devnet: 503 SANDBOX_FAUCET_NOT_CONFIGURED naming npm run devnet; under NODE_ENV=production: not served', async () => {
    const bare = await makeApp()
    try {
      const fb = new Factory(bare)
      const u = await fb.user(await fb.tenant())
      const w = await fb.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
      const res = await fb.api.post('/v1/sandbox/faucet', { walletId: w.body.id }, { token: u.accessToken })
      expect(res.status).toBe(503)
      expect(res.body.details.code).toBe('SANDBOX_FAUCET_NOT_CONFIGURED')
      expect(res.body.message).toContain('npm run devnet')
    } finally {
      await bare.close()
    }
    const prod = await makeApp({ env: { NODE_ENV: 'production', ...devnet.env } })
    try {
      expect(prod.deps.faucet).toBeUndefined()
      const res = await prod.handle(new Request('http://slipway.test/v1/sandbox/faucet', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
      expect(res.status).toBe(404)
    } finally {
      await prod.close()
    }
  }, 30_000)
})
