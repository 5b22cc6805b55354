/**
 * `npm run devnet` (scripts/devnet.ts, as a process) runs a current hard fork and keeps its
 * chains in a state file: a type-4 transaction (EIP-7702, Prague) delegates an account's code,
 * and after the devnet is stopped and started again with the same `--state`, the balances and
 * the delegation are there.
 */
import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, http, parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEVNET_CHAIN_ID, DEVNET_KEYS, DEVNET_USDC, MULTICALL3 } from '../../scripts/devnet/chain'
import token from '../../scripts/devnet/SandboxUSD.json'
import multicall3 from '../fixtures/multicall3.json'

const root = join(import.meta.dir, '..', '..')
const out = mkdtempSync(join(tmpdir(), 'slipway-devnet-state-'))
const state = join(out, 'sandbox.json')
const envFile = join(out, '.env.devnet')
let proc: ReturnType<typeof Bun.spawn> | undefined

afterAll(async () => {
  proc?.kill('SIGTERM')
  await proc?.exited
  rmSync(out, { recursive: true, force: true })
})

/** `npm run devnet -- --port 0 --state <file>` with its env file in the test's folder; answers its Sepolia RPC address */
async function devnet(): Promise<string> {
  rmSync(envFile, { force: true })
  proc = Bun.spawn([process.execPath, join(root, 'scripts/devnet.ts'), '--port', '0', '--env-file', envFile, '--dir', out, '--state', state], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  // its chains and contracts took 18.9 s to the env file at load 18 (the examples' devnet): a start limit, not a property
  const deadline = Date.now() + 45_000
  while (!existsSync(envFile) && proc.exitCode === null && Date.now() < deadline) await Bun.sleep(50)
  if (!existsSync(envFile)) throw new Error(`no ${envFile}: ${await new Response(proc.stderr as ReadableStream).text()}`)
  return /^RPC_URL_SEPOLIA=(.+)$/m.exec(readFileSync(envFile, 'utf8'))![1]!
}

async function stop() {
  proc!.kill('SIGTERM')
  expect(await proc!.exited).toBe(0)
  proc = undefined
}

const clients = (url: string) => {
  const chain = defineChain({ id: DEVNET_CHAIN_ID, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  return {
    pub: createPublicClient({ chain, transport: http(url), pollingInterval: 100 }),
    funder: createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEVNET_KEYS.funder) }),
  }
}
const usdcOf = (url: string, who: Address) => clients(url).pub.readContract({ address: DEVNET_USDC, abi: token.abi, functionName: 'balanceOf', args: [who] }) as Promise<bigint>

test('a type-4 (EIP-7702) transaction is mined; stopped and started again on its --state file, the devnet has its balances and the delegation back', async () => {
  const url = await devnet()
  const { pub, funder } = clients(url)
  const user = privateKeyToAccount(generatePrivateKey())

  // EIP-7702: the user signs an authorization to run Multicall3's code; the funder sends it (and pays)
  const authorization = await user.signAuthorization({ contractAddress: MULTICALL3, chainId: DEVNET_CHAIN_ID, nonce: 0 })
  // (a call to the delegated code itself: Multicall3's getEthBalance, of the user)
  const data = encodeFunctionData({ abi: multicall3.abi, functionName: 'getEthBalance', args: [user.address] })
  const hash = await funder.sendTransaction({ to: user.address, authorizationList: [authorization], data })
  const receipt = await pub.waitForTransactionReceipt({ hash })
  expect([receipt.status, receipt.type]).toEqual(['success', 'eip7702'])
  const delegated = `0xef0100${MULTICALL3.slice(2).toLowerCase()}`
  expect((await pub.getCode({ address: user.address }))?.toLowerCase()).toBe(delegated)

  // balances of another account: ETH and test USDC
  const holder = privateKeyToAccount(generatePrivateKey()).address
  await pub.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: holder, value: parseEther('2') }) })
  await pub.waitForTransactionReceipt({ hash: await funder.writeContract({ address: DEVNET_USDC, abi: token.abi, functionName: 'mint', args: [holder, 25_000_000n] } as never) })
  const before = { eth: await pub.getBalance({ address: holder }), usdc: await usdcOf(url, holder), block: await pub.getBlockNumber() }
  expect(before).toMatchObject({ eth: parseEther('2'), usdc: 25_000_000n })

  await stop()
  expect(existsSync(state)).toBe(true)
  expect(existsSync(join(out, 'sandbox-chiado.json'))).toBe(true)

  const again = await devnet()
  const next = clients(again)
  expect(await next.pub.getBalance({ address: holder })).toBe(before.eth)
  expect(await usdcOf(again, holder)).toBe(before.usdc)
  expect((await next.pub.getCode({ address: user.address }))?.toLowerCase()).toBe(delegated)
  expect(await next.pub.getBlockNumber()).toBeGreaterThanOrEqual(before.block)
  // and it goes on: a send after the restart is mined
  const after = await next.funder.sendTransaction({ to: holder, value: 1n })
  expect((await next.pub.waitForTransactionReceipt({ hash: after })).status).toBe('success')
  await stop()
}, 60_000)
