/**
 * The devnet's chain: an anvil node (scripts/devnet/anvil.ts, Prague fork) posing as Sepolia (chain id 11155111) on 127.0.0.1, with
 * the test stablecoin (SandboxUSD.sol: 6 decimals, EIP-2612 permit, EIP-3009
 * transferWithAuthorization, open mint) at the token registry's Sepolia USDC address, a
 * Multicall3 at its canonical address, a minimal Aave v3 pool (SandboxAavePool.sol) at Aave's
 * Sepolia Pool address with the test stablecoin listed as a reserve, and three funded keys: a funder, the bank ramp
 * simulator's (which pays converted deposits in the stablecoin) and the sandbox faucet's
 * (gas for sandbox wallets). Blocks are mined every `blockTime` seconds, as on a real chain.
 *
 * The keys are public and for this devnet only; the chain id is a testnet's, so Slipway's
 * sandbox partners accept it (they refuse mainnets). With a state file (`state`) the chain
 * survives a restart; the set-up is applied again only where it is missing. Contracts are
 * placed with anvil's `anvil_setCode`, gas with `anvil_setBalance`.
 *
 * A second node stands in for `gnosis-chiado` (Gnosis's testnet, chain id 10200) for swaps: the
 * registry's gnosis-chiado USDC (SandboxUSD) and EURe (SandboxEURe, 18 decimals) at their
 * addresses, Multicall3, and the sandbox swap aggregator's router (SandboxRouter.sol), deployed
 * by a key of its own, given the rates of src/sandbox/swap-aggregator/market.ts and funded with
 * each token and the native coin. Its chain id is a testnet's, so the devnet's gnosis wallets
 * are test-network wallets (`isTestnet: true`) and the same settings without .env.devnet point
 * at the public Chiado, never at gnosis mainnet; the sandbox aggregator quotes its chain id as a
 * supported testnet (docs/sandbox.md, "The devnet's networks").
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, defineChain, getContractAddress, http, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import sandboxUsd from './SandboxUSD.json'
import sandboxEure from './SandboxEURe.json'
import sandboxRouter from './SandboxRouter.json'
import sandboxAavePool from './SandboxAavePool.json'
import multicall3 from '../../tests/fixtures/multicall3.json'
import { marketPairs, NATIVE_TOKEN } from '../../src/sandbox/swap-aggregator/market'
import { X402_KEYS } from './x402'
import { startAnvil, type AnvilNode } from './anvil'

export const DEVNET_CHAIN_ID = 11155111
/** the token registry's Sepolia USDC address (src/adapters/chain/registry.ts) */
export const DEVNET_USDC: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
export const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
/** Aave v3's Sepolia Pool address (bgd-labs/aave-address-book AaveV3Sepolia.POOL): the devnet's SandboxAavePool.sol is placed there */
export const DEVNET_AAVE_POOL: Address = '0x6Ae43d3271ff6888e7Fc43Fd7321a503ff738951'
/** the supply rate the devnet pool lists the test USDC with: 3.5% a year, in ray (1e27) */
export const DEVNET_AAVE_USDC_RATE = 35n * 10n ** 24n
/** public, devnet-only keys (well-known test keys: never hold value with them anywhere) */
export const DEVNET_KEYS = {
  funder: '0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d',
  simulator: '0x6cbed15c793ce57650b9877cf6fa156fbef513c4e6134f022a85b1ffdd59b2a1',
  faucet: '0x6370fd033278c143179d81c5526140625662b8daa446c22ee2d73db3707e620c',
  /** deploys and owns the swap router on the Chiado node (its first transaction there, so the router's address is fixed) */
  router: '0x646f1ce2fdad0e6deeeb5c7e8e5543bdde65e86029e2fd9fc169899c440a7913',
  /** the gasless swaps' relayer on the Chiado node (SWAP_GASLESS_RELAYER_PRIVATE_KEY in .env.devnet), allowed by the router */
  relayer: '0xadd53f9a7e588d003326d1cbf9e4a43c061aadd9bc938c843a79e7b4fd2ad743',
} as const satisfies Record<string, Hex>

/** the Chiado node: gnosis-chiado's chain id, a testnet's */
export const DEVNET_CHIADO_CHAIN_ID = 10200
/** the token registry's gnosis-chiado USDC and EURe (src/adapters/chain/registry.ts) */
export const DEVNET_CHIADO_USDC: Address = '0xDDAfbb505ad214D7b80b1f830fcCc89B60fb7A83'
export const DEVNET_CHIADO_EURE: Address = '0xb106ed7587365a16b6691a3D4B2A734f4E8268a2'
/** the sandbox swap router: the router key's first contract on the Chiado node */
export const DEVNET_SWAP_ROUTER: Address = getContractAddress({ from: privateKeyToAccount(DEVNET_KEYS.router).address, nonce: 0n })
/** what the router holds of each token to pay swaps out with (1,000,000,000 of the token), and of the native coin */
const ROUTER_TOKEN_UNITS = 1_000_000_000n
const ROUTER_NATIVE_WEI = 100_000n * 10n ** 18n
/** the relayer's gas on the Chiado node (100 xDAI) */
const RELAYER_NATIVE_WEI = 100n * 10n ** 18n
/** what the simulator holds to pay deposits with: 1,000,000,000 USDC */
const SIMULATOR_USDC = 1_000_000_000_000_000n
/** each devnet key's gas on a new chain (1,000,000 of the native coin) */
const KEY_NATIVE_WEI = 10n ** 24n

export interface Devnet {
  url: string
  chainId: number
  /** the node standing in for gnosis-chiado (chain id 10200), for swaps */
  chiadoUrl: string
  /** the settings that point Slipway at this devnet (written to .env.devnet by scripts/devnet.ts) */
  env: Record<string, string>
  /** the nodes' process ids (benchmarks read their CPU time) */
  pids: { sepolia: number; chiado: number }
  /** stops both nodes; with a state file, each writes its chain there first */
  stop(): Promise<void>
}

/** the Chiado node's state file beside Sepolia's: `devnet.json` → `devnet-chiado.json` (a chain-id-100 `-gnosis.json` of an older devnet is not loaded) */
export const chiadoStateFile = (file: string) => (/\.json$/i.test(file) ? file.replace(/\.json$/i, '-chiado.json') : `${file}-chiado`)

export interface DevnetOptions {
  /** Sepolia's node's port (8545; 0: a free one) */
  port?: number
  /** Chiado's (the next port; with port 0, a free one) */
  chiadoPort?: number
  host?: string
  /** a file Sepolia's chain is loaded from at start (when it exists) and written to at stop and every 10 s (anvil's --state) */
  state?: string
  /** Chiado's (default: beside `state`, see chiadoStateFile) */
  chiadoState?: string
  /** a folder to keep Sepolia's chain in (its state.json), for callers that name folders; `state` wins */
  dbPath?: string
  /** Chiado's folder (default `<dbPath>-chiado`) */
  chiadoDbPath?: string
  /** seconds between blocks (default 1, as on a real chain); 0: a block per transaction */
  blockTime?: number
}

/**
 * Starts both nodes (anvil, Prague fork): Sepolia's on `port` (8545), Chiado's on `chiadoPort`.
 * The set-up runs with a block per transaction (so it takes well under a second), then the
 * nodes switch to `blockTime`. With a state file, a restarted devnet has its balances back and
 * only what is missing is set up again.
 */
export async function startDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const host = opts.host ?? '127.0.0.1'
  const port = opts.port ?? 8545
  const blockTime = opts.blockTime ?? 1
  const inFolder = (folder: string | undefined) => {
    if (!folder) return undefined
    mkdirSync(folder, { recursive: true })
    return join(folder, 'state.json')
  }
  const sepoliaState = opts.state ?? inFolder(opts.dbPath)
  const chiadoState = opts.chiadoState ?? (opts.state ? chiadoStateFile(opts.state) : inFolder(opts.chiadoDbPath ?? (opts.dbPath ? `${opts.dbPath}-chiado` : undefined)))
  const keys = [...Object.values(DEVNET_KEYS), X402_KEYS.facilitator].map((k) => privateKeyToAccount(k).address)
  const node = async (chainId: number, listenPort: number, state: string | undefined) => startAnvil({
    chainId, host, port: listenPort,
    // whole seconds are switched to after the set-up (anvil's evm_setIntervalMining takes whole seconds)
    blockTime: blockTime > 0 && !Number.isInteger(blockTime) ? blockTime : undefined,
    ...(state ? { state, stateIntervalSeconds: 10 } : {}),
    // the devnet's keys get their gas once, on a new chain: a restarted one keeps what they hold
    balances: state && existsSync(state) ? [] : keys.map((address) => ({ address, wei: KEY_NATIVE_WEI })),
  })
  const sepolia = await node(DEVNET_CHAIN_ID, port, sepoliaState)
  let chiado: AnvilNode | undefined
  try {
    chiado = await node(DEVNET_CHIADO_CHAIN_ID, opts.chiadoPort ?? (port === 0 ? 0 : port + 1), chiadoState)
    await Promise.all([setUp(sepolia.url), setUpChiado(chiado.url)])
    if (blockTime > 0 && Number.isInteger(blockTime)) {
      for (const n of [sepolia, chiado]) await n.rpc('evm_setIntervalMining', [blockTime])
    }
  } catch (err) {
    await sepolia.stop()
    await chiado?.stop()
    throw err
  }
  const url = sepolia.url
  const chiadoNode = chiado
  return {
    url,
    chainId: DEVNET_CHAIN_ID,
    chiadoUrl: chiado.url,
    pids: { sepolia: sepolia.pid, chiado: chiado.pid },
    env: {
      RPC_URL_SEPOLIA: url,
      BANK_RAMP_SIMULATOR_RPC_URL: url,
      BANK_RAMP_SIMULATOR_TOKEN_ADDRESS: DEVNET_USDC,
      BANK_RAMP_SIMULATOR_PRIVATE_KEY: DEVNET_KEYS.simulator,
      SANDBOX_FAUCET_RPC_URL: url,
      SANDBOX_FAUCET_PRIVATE_KEY: DEVNET_KEYS.faucet,
      SANDBOX_FAUCET_NETWORK: 'sepolia',
      RPC_URL_GNOSIS_CHIADO: chiado.url,
      SANDBOX_SWAP_ROUTER_ADDRESS: DEVNET_SWAP_ROUTER,
      SANDBOX_SWAP_CHAINS: String(DEVNET_CHIADO_CHAIN_ID),
      SWAP_GASLESS_ENABLED: 'true',
      SWAP_GASLESS_RELAYER_PRIVATE_KEY: DEVNET_KEYS.relayer,
    },
    stop: async () => {
      await Promise.all([sepolia.stop(), chiadoNode.stop()])
    },
  }
}

/**
 * Gas on the Chiado node for any address (a user's wallet before a swap): the sandbox faucet
 * pays on one network (SANDBOX_FAUCET_NETWORK, the devnet's Sepolia), so the devnet sets the
 * balance itself (anvil's `anvil_setBalance`; the same call works with
 * curl, docs/sandbox.md).
 */
export async function giveChiadoGas(chiadoUrl: string, address: string, wei: bigint) {
  const res = await fetch(chiadoUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [address, `0x${wei.toString(16)}`] }) })
  const body = await res.json() as { error?: { message: string } }
  if (body.error) throw new Error(`anvil_setBalance: ${body.error.message}`)
}

/** Puts the tokens, Multicall3 and the router in place on the Chiado node, sets its rates and funds it, where a restarted chain does not have them yet. */
async function setUpChiado(url: string) {
  const chain = defineChain({ id: DEVNET_CHIADO_CHAIN_ID, name: 'devnet-chiado', nativeCurrency: { name: 'xDai', symbol: 'xDAI', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const pub = createPublicClient({ chain, transport: http(url) })
  const rpc = (method: string, params: unknown[]) => pub.request({ method, params } as never)
  for (const [address, code] of [[DEVNET_CHIADO_USDC, sandboxUsd.deployedBytecode], [DEVNET_CHIADO_EURE, sandboxEure.deployedBytecode]] as const) {
    if ((await pub.getCode({ address })) !== code) await rpc('anvil_setCode', [address, code])
  }
  if (!(await pub.getCode({ address: MULTICALL3 }))) await rpc('anvil_setCode', [MULTICALL3, multicall3.deployedBytecode])
  const owner = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEVNET_KEYS.router) })
  const mined = async (hash: Hex) => {
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    if (receipt.status !== 'success') throw new Error(`devnet set-up transaction ${hash} reverted`)
  }
  if (!(await pub.getCode({ address: DEVNET_SWAP_ROUTER }))) {
    const nonce = await pub.getTransactionCount({ address: owner.account.address })
    if (nonce !== 0) throw new Error(`the router key has sent ${nonce} transactions on the Chiado node but no router is at ${DEVNET_SWAP_ROUTER}: start afresh with --reset`)
    await mined(await owner.deployContract({ abi: sandboxRouter.abi, bytecode: sandboxRouter.bytecode as Hex }))
  } else if ((await pub.getCode({ address: DEVNET_SWAP_ROUTER })) !== sandboxRouter.deployedBytecode) {
    throw new Error(`the router at ${DEVNET_SWAP_ROUTER} is an older build of SandboxRouter.sol: start afresh with --reset`)
  }
  const addr = (a: string) => a as Address
  for (const pair of marketPairs(DEVNET_CHIADO_CHAIN_ID)) {
    const [num, den] = await pub.readContract({ address: DEVNET_SWAP_ROUTER, abi: sandboxRouter.abi, functionName: 'rates', args: [addr(pair.from.address), addr(pair.to.address)] }) as [bigint, bigint]
    if (num !== pair.num || den !== pair.den) {
      await mined(await owner.writeContract({ address: DEVNET_SWAP_ROUTER, abi: sandboxRouter.abi, functionName: 'setRate', args: [pair.from.address, pair.to.address, pair.num, pair.den] } as never))
    }
  }
  const relayer = privateKeyToAccount(DEVNET_KEYS.relayer).address
  if (!(await pub.readContract({ address: DEVNET_SWAP_ROUTER, abi: sandboxRouter.abi, functionName: 'relayers', args: [relayer] }))) {
    await mined(await owner.writeContract({ address: DEVNET_SWAP_ROUTER, abi: sandboxRouter.abi, functionName: 'setRelayer', args: [relayer, true] } as never))
  }
  if ((await pub.getBalance({ address: relayer })) < RELAYER_NATIVE_WEI / 2n) await giveChiadoGas(url, relayer, RELAYER_NATIVE_WEI)
  const tokens = [...new Map(marketPairs(DEVNET_CHIADO_CHAIN_ID).map((p) => [p.from.address, p.from])).values()]
  for (const token of tokens) {
    if (token.address === NATIVE_TOKEN) {
      if ((await pub.getBalance({ address: DEVNET_SWAP_ROUTER })) < ROUTER_NATIVE_WEI / 2n) await giveChiadoGas(url, DEVNET_SWAP_ROUTER, ROUTER_NATIVE_WEI)
      continue
    }
    const target = ROUTER_TOKEN_UNITS * 10n ** BigInt(token.decimals)
    const held = await pub.readContract({ address: addr(token.address), abi: sandboxUsd.abi, functionName: 'balanceOf', args: [DEVNET_SWAP_ROUTER] }) as bigint
    if (held < target / 2n) await mined(await owner.writeContract({ address: addr(token.address), abi: sandboxUsd.abi, functionName: 'mint', args: [DEVNET_SWAP_ROUTER, target] } as never))
  }
}

/** Puts the contracts in place and funds the simulator, where a restarted chain does not have them yet. */
async function setUp(url: string) {
  const chain = defineChain({ id: DEVNET_CHAIN_ID, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const pub = createPublicClient({ chain, transport: http(url) })
  const rpc = (method: string, params: unknown[]) => pub.request({ method, params } as never)
  if ((await pub.getCode({ address: DEVNET_USDC })) !== sandboxUsd.deployedBytecode) await rpc('anvil_setCode', [DEVNET_USDC, sandboxUsd.deployedBytecode])
  if (!(await pub.getCode({ address: MULTICALL3 }))) await rpc('anvil_setCode', [MULTICALL3, multicall3.deployedBytecode])
  await setUpAavePool(url, pub, rpc)
  const simulator = privateKeyToAccount(DEVNET_KEYS.simulator).address
  const held = await pub.readContract({ address: DEVNET_USDC, abi: sandboxUsd.abi, functionName: 'balanceOf', args: [simulator] }) as bigint
  const funder = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEVNET_KEYS.funder) })
  // the x402 facilitator pays its settlements' gas (a chain from before it existed holds none for it)
  const facilitator = privateKeyToAccount(X402_KEYS.facilitator).address
  if (await pub.getBalance({ address: facilitator }) < 10n ** 18n) {
    await pub.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: facilitator, value: 100n * 10n ** 18n }), pollingInterval: 20 })
  }
  if (held < SIMULATOR_USDC / 2n) {
    const hash = await funder.writeContract({ address: DEVNET_USDC, abi: sandboxUsd.abi, functionName: 'mint', args: [simulator, SIMULATOR_USDC] })
    await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  }
}

/**
 * The devnet's Aave pool: SandboxAavePool.sol's code copied to Aave's Sepolia Pool address (no
 * constructor runs there, so the contract keeps none of its state in a constructor), then the
 * test USDC listed as a reserve by the funder (`listReserve` deploys its aToken), where a
 * restarted chain does not have it yet.
 */
async function setUpAavePool(url: string, pub: ReturnType<typeof createPublicClient>, rpc: (method: string, params: unknown[]) => Promise<unknown>) {
  if ((await pub.getCode({ address: DEVNET_AAVE_POOL })) !== sandboxAavePool.deployedBytecode) await rpc('anvil_setCode', [DEVNET_AAVE_POOL, sandboxAavePool.deployedBytecode])
  const reserve = await pub.readContract({ address: DEVNET_AAVE_POOL, abi: sandboxAavePool.abi, functionName: 'getReserveData', args: [DEVNET_USDC] }) as { aTokenAddress: Address }
  if (!/^0x0{40}$/.test(reserve.aTokenAddress)) return
  const chain = defineChain({ id: DEVNET_CHAIN_ID, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const funder = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEVNET_KEYS.funder) })
  const hash = await funder.writeContract({ address: DEVNET_AAVE_POOL, abi: sandboxAavePool.abi, functionName: 'listReserve', args: [DEVNET_USDC, 'Aave Ethereum Sepolia USDC (devnet)', 'aEthUSDC', DEVNET_AAVE_USDC_RATE, 100_000_000n] } as never)
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  if (receipt.status !== 'success') throw new Error(`devnet set-up: listing USDC on the Aave pool reverted (${hash})`)
}
