/**
 * ERC-4337 v0.8 on a local anvil node, for the devnet and the tests (gas sponsorship,
 * docs/gas-sponsorship.md):
 * - `installAccountAbstraction` deploys, through the deterministic deployer (Nick's CREATE2
 *   factory, put in place with anvil_setCode when the node lacks it), EntryPoint v0.8 and
 *   Simple7702Account from the `@account-abstraction/contracts` 0.8 artifacts (MIT), with the
 *   salts of their canonical deployments, so they land at their mainnet addresses
 *   (0x4337084D…Ff108 and 0xe6Cae83B…555B) and viem's defaults find them.
 * - `deployPaymaster` deploys SlipwayPaymaster (scripts/devnet/SlipwayPaymaster.sol, compiled
 *   into SlipwayPaymaster.json) for a signer, and deposits for it in the EntryPoint.
 * - `startAlto` runs Pimlico's alto bundler (`@pimlico/alto`, GPL-3.0-or-later: a dev
 *   dependency the devnet and tests run as a separate process, never part of Slipway's build)
 *   against the node, as a child process on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { concat, createPublicClient, createWalletClient, encodeDeployData, getContractAddress, http, type Address, type Chain, type Hex, type LocalAccount } from 'viem'
import { entryPoint08Abi, entryPoint08Address } from 'viem/account-abstraction'
import paymasterArtifact from './SlipwayPaymaster.json'

const require = createRequire(import.meta.url)

export const DETERMINISTIC_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'
/** the runtime code of the deterministic deployer (github.com/Arachnid/deterministic-deployment-proxy) */
const DETERMINISTIC_DEPLOYER_CODE: Hex = '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3'
/** the salts of the canonical v0.8 deployments (checked: they give the canonical addresses) */
const ENTRY_POINT_SALT: Hex = '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9'
const SIMPLE_7702_SALT: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000'
export const SIMPLE_7702_ACCOUNT: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'
export const ENTRY_POINT_08: Address = entryPoint08Address

export interface DevnetSigner {
  chain: Chain
  rpcUrl: string
  /** a funded key that sends the deployments */
  account: LocalAccount
}

function artifact(name: string): { bytecode: Hex } {
  return require(`@account-abstraction/contracts/artifacts/${name}.json`)
}

async function clients(s: DevnetSigner) {
  const pub = createPublicClient({ chain: s.chain, transport: http(s.rpcUrl), pollingInterval: 50 })
  const wallet = createWalletClient({ chain: s.chain, transport: http(s.rpcUrl), account: s.account })
  return { pub, wallet }
}

async function deterministicDeploy(s: DevnetSigner, salt: Hex, bytecode: Hex, expected: Address) {
  const { pub, wallet } = await clients(s)
  const at = getContractAddress({ opcode: 'CREATE2', from: DETERMINISTIC_DEPLOYER, salt, bytecode })
  if (at.toLowerCase() !== expected.toLowerCase()) throw new Error(`the artifact would deploy at ${at}, not ${expected}`)
  if (await pub.getCode({ address: at })) return at
  const hash = await wallet.sendTransaction({ to: DETERMINISTIC_DEPLOYER, data: concat([salt, bytecode]), gas: 8_000_000n })
  const r = await pub.waitForTransactionReceipt({ hash })
  if (r.status !== 'success' || !(await pub.getCode({ address: at }))) throw new Error(`deploying ${expected} failed`)
  return at
}

/** EntryPoint v0.8 and Simple7702Account at their canonical addresses (nothing is sent when they are there). */
export async function installAccountAbstraction(s: DevnetSigner, rpc: (method: string, params: unknown[]) => Promise<unknown>) {
  const { pub } = await clients(s)
  if (!(await pub.getCode({ address: DETERMINISTIC_DEPLOYER }))) await rpc('anvil_setCode', [DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_CODE])
  const entryPoint = await deterministicDeploy(s, ENTRY_POINT_SALT, artifact('EntryPoint').bytecode, ENTRY_POINT_08)
  const simple7702 = await deterministicDeploy(s, SIMPLE_7702_SALT, artifact('Simple7702Account').bytecode, SIMPLE_7702_ACCOUNT)
  return { entryPoint, simple7702 }
}

/**
 * Deploys SlipwayPaymaster for `signer` (owned by the deploying key) through the deterministic
 * deployer, so the same signer and owner give the same address on every devnet start (nothing
 * is sent when it is there), and deposits `depositWei` for it in the EntryPoint.
 */
export async function deployPaymaster(s: DevnetSigner, signer: Address, depositWei: bigint): Promise<Address> {
  const bytecode = encodeDeployData({ abi: paymasterArtifact.abi, bytecode: paymasterArtifact.bytecode as Hex, args: [ENTRY_POINT_08, signer, s.account.address] })
  const salt: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000'
  const paymaster = getContractAddress({ opcode: 'CREATE2', from: DETERMINISTIC_DEPLOYER, salt, bytecode })
  await deterministicDeploy(s, salt, bytecode, paymaster)
  if (depositWei > 0n) await depositFor(s, paymaster, depositWei)
  return paymaster
}

/** the paymaster's deposit in EntryPoint v0.8 */
export async function depositOf(s: DevnetSigner, paymaster: Address): Promise<bigint> {
  const { pub } = await clients(s)
  return pub.readContract({ address: ENTRY_POINT_08, abi: entryPoint08Abi, functionName: 'balanceOf', args: [paymaster] })
}

/** EntryPoint `depositTo(paymaster)` with `wei` from the signer's key. */
export async function depositFor(s: DevnetSigner, paymaster: Address, wei: bigint) {
  const { pub, wallet } = await clients(s)
  const hash = await wallet.writeContract({ address: ENTRY_POINT_08, abi: entryPoint08Abi, functionName: 'depositTo', args: [paymaster], value: wei })
  await pub.waitForTransactionReceipt({ hash })
}

export interface AltoOptions {
  rpcUrl: string
  /** keys that send the bundles (funded on the node) */
  executorKeys: Hex[]
  /** the key that deploys alto's simulation contracts (funded) */
  utilityKey: Hex
  port?: number
  /** `manual`: nothing is bundled until debug_bundler_sendBundleNow (tests of a dropped operation) */
  bundleMode?: 'auto' | 'manual'
}

export interface AltoBundler {
  url: string
  port: number
  pid: number
  stop(): Promise<void>
}

/** A free port on 127.0.0.1 (alto takes a fixed `--port`, and says nothing about which it got for 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL')
})

/** Starts alto against the node and waits until it answers `eth_supportedEntryPoints` with EntryPoint v0.8. */
export async function startAlto(opts: AltoOptions): Promise<AltoBundler> {
  const port = opts.port ?? (await freePort())
  // the package exports only its library entry: its CLI is found beside it
  const cli = join(dirname(require.resolve('@pimlico/alto')), 'cli', 'alto.js')
  const args = [
    cli, '--entrypoints', ENTRY_POINT_08, '--rpc-url', opts.rpcUrl, '--port', String(port),
    '--executor-private-keys', opts.executorKeys.join(','), '--utility-private-key', opts.utilityKey,
    // anvil runs no JavaScript tracer: the full ERC-7562 checks (safe mode) need one
    '--safe-mode', 'false', '--block-time', '100', '--min-bundle-interval', '50', '--max-bundle-interval', '200',
    '--bundle-mode', opts.bundleMode ?? 'auto', '--enable-debug-endpoints', 'true', '--utility-wallet-monitor', 'false',
    '--log-level', process.env.ALTO_LOGS ? 'info' : 'warn', '--deploy-simulations-contract', 'true',
  ]
  // node runs it: alto is a Node program (fastify, pino)
  const child = spawn(process.env.NODE_BIN ?? 'node', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  running.add(child)
  child.once('exit', () => running.delete(child))
  let seen = ''
  const read = (chunk: Buffer) => {
    if (process.env.ALTO_LOGS) process.stderr.write(chunk)
    if (seen.length < 32_000) seen += chunk.toString()
  }
  child.stdout!.on('data', read)
  child.stderr!.on('data', read)
  child.on('error', () => {})
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`alto exited (${child.exitCode}):\n${seen.slice(-3000)}`)
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }) })
      const body = (await res.json()) as { result?: string[] }
      if (body.result?.some((a) => a.toLowerCase() === ENTRY_POINT_08.toLowerCase())) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`alto did not answer within 60 s:\n${seen.slice(-3000)}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    url,
    port,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
      await exited
      clearTimeout(timer)
    },
  }
}
