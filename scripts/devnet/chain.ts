/**
 * The devnet's chain: a ganache node posing as Sepolia (chain id 11155111) on 127.0.0.1, with
 * the test stablecoin (SandboxUSD.sol: 6 decimals, EIP-2612 permit, EIP-3009
 * transferWithAuthorization, open mint) at the token registry's Sepolia USDC address, a
 * Multicall3 at its canonical address, and three funded keys: a funder, the bank ramp
 * simulator's (which pays converted deposits in the stablecoin) and the sandbox faucet's
 * (gas for sandbox wallets). Blocks are mined every `blockTime` seconds, as on a real chain.
 *
 * The keys are public and for this devnet only; the chain id is a testnet's, so Slipway's
 * sandbox partners accept it (they refuse mainnets). With `dbPath` the chain survives a
 * restart; the set-up is applied again only where it is missing.
 */
import ganache from 'ganache'
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import sandboxUsd from './SandboxUSD.json'
import multicall3 from '../../tests/fixtures/multicall3.json'

export const DEVNET_CHAIN_ID = 11155111
/** the token registry's Sepolia USDC address (src/modules/tokens/registry.ts) */
export const DEVNET_USDC: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
export const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
/** public, devnet-only keys (well-known test keys: never hold value with them anywhere) */
export const DEVNET_KEYS = {
  funder: '0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d',
  simulator: '0x6cbed15c793ce57650b9877cf6fa156fbef513c4e6134f022a85b1ffdd59b2a1',
  faucet: '0x6370fd033278c143179d81c5526140625662b8daa446c22ee2d73db3707e620c',
} as const satisfies Record<string, Hex>
/** what the simulator holds to pay deposits with: 1,000,000,000 USDC */
const SIMULATOR_USDC = 1_000_000_000_000_000n

export interface Devnet {
  url: string
  chainId: number
  /** the settings that point Slipway at this devnet (written to .env.devnet by scripts/devnet.ts) */
  env: Record<string, string>
  stop(): Promise<void>
}

export async function startDevnet(opts: { port?: number; host?: string; dbPath?: string; blockTime?: number } = {}): Promise<Devnet> {
  const balance = `0x${(10n ** 24n).toString(16)}`
  const server = ganache.server({
    logging: { quiet: true },
    chain: { chainId: DEVNET_CHAIN_ID, hardfork: 'shanghai' },
    miner: { blockTime: opts.blockTime ?? 1 },
    ...(opts.dbPath ? { database: { dbPath: opts.dbPath } } : {}),
    wallet: { accounts: Object.values(DEVNET_KEYS).map((secretKey) => ({ secretKey, balance })) },
  } as never)
  await server.listen(opts.port ?? 8545, opts.host ?? '127.0.0.1')
  const url = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as { port: number }).port}`
  try {
    await setUp(url)
  } catch (err) {
    await server.close()
    throw err
  }
  return {
    url,
    chainId: DEVNET_CHAIN_ID,
    env: {
      RPC_URL_SEPOLIA: url,
      BANK_RAMP_SIMULATOR_RPC_URL: url,
      BANK_RAMP_SIMULATOR_TOKEN_ADDRESS: DEVNET_USDC,
      BANK_RAMP_SIMULATOR_PRIVATE_KEY: DEVNET_KEYS.simulator,
      SANDBOX_FAUCET_RPC_URL: url,
      SANDBOX_FAUCET_PRIVATE_KEY: DEVNET_KEYS.faucet,
      SANDBOX_FAUCET_NETWORK: 'sepolia',
    },
    stop: () => server.close(),
  }
}

/** Puts the contracts in place and funds the simulator, where a restarted chain does not have them yet. */
async function setUp(url: string) {
  const chain = defineChain({ id: DEVNET_CHAIN_ID, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const pub = createPublicClient({ chain, transport: http(url) })
  const rpc = (method: string, params: unknown[]) => pub.request({ method, params } as never)
  if ((await pub.getCode({ address: DEVNET_USDC })) !== sandboxUsd.deployedBytecode) await rpc('evm_setAccountCode', [DEVNET_USDC, sandboxUsd.deployedBytecode])
  if (!(await pub.getCode({ address: MULTICALL3 }))) await rpc('evm_setAccountCode', [MULTICALL3, multicall3.deployedBytecode])
  const simulator = privateKeyToAccount(DEVNET_KEYS.simulator).address
  const held = await pub.readContract({ address: DEVNET_USDC, abi: sandboxUsd.abi, functionName: 'balanceOf', args: [simulator] }) as bigint
  if (held < SIMULATOR_USDC / 2n) {
    const funder = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEVNET_KEYS.funder) })
    const hash = await funder.writeContract({ address: DEVNET_USDC, abi: sandboxUsd.abi, functionName: 'mint', args: [simulator, SIMULATOR_USDC] })
    await pub.waitForTransactionReceipt({ hash, pollingInterval: 100 })
  }
}
