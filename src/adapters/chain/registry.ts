/**
 * The built-in chain and token registry: the spec's default chains (10 EVM chains and
 * Solana), each with a mainnet and a testnet network (registry ids from DECISIONS.md),
 * and a seeded token list per network. RPC addresses are configuration: see `rpcUrlFor`.
 */
import type { ChainEndpoint, Family } from './port'
import type { Config } from '../../config'

export interface TokenDef {
  symbol: string
  name: string
  decimals: number
  /** contract (EVM) or mint (Solana); null for the native coin */
  address: string | null
}

export interface NetworkDef {
  /** registry id: the family chain id for mainnet (`ethereum`), the testnet's own id (`sepolia`) */
  id: string
  name: string
  isTestnet: boolean
  /** EIP-155 chain id; null for Solana */
  chainId: number | null
  /** public RPC used when neither RPC_URL_<ID> nor the tenant names one */
  defaultRpcUrl: string
  /** Multicall3 deployed at its canonical address on this network */
  multicall3: boolean
  tokens: TokenDef[]
}

export interface ChainDef {
  /** family chain id as the API uses it (`ethereum`, `solana`) */
  id: string
  family: Family
  nativeToken: { symbol: string; name: string; decimals: number }
  mainnet: NetworkDef
  testnet: NetworkDef
}

const native = (c: { symbol: string; name: string; decimals: number }): TokenDef => ({ ...c, address: null })
const usdc = (address: string, decimals = 6): TokenDef => ({ symbol: 'USDC', name: 'USD Coin', decimals, address })
const usdt = (address: string, decimals = 6): TokenDef => ({ symbol: 'USDT', name: 'Tether USD', decimals, address })
const eurc = (address: string, decimals = 6): TokenDef => ({ symbol: 'EURC', name: 'Euro Coin', decimals, address })

function evm(
  id: string,
  coin: { symbol: string; name: string; decimals: number },
  main: { name: string; chainId: number; rpc: string; tokens: TokenDef[] },
  test: { id: string; name: string; chainId: number; rpc: string; tokens: TokenDef[] },
): ChainDef {
  return {
    id,
    family: 'evm',
    nativeToken: coin,
    mainnet: { id, name: main.name, isTestnet: false, chainId: main.chainId, defaultRpcUrl: main.rpc, multicall3: true, tokens: [native(coin), ...main.tokens] },
    testnet: { id: test.id, name: test.name, isTestnet: true, chainId: test.chainId, defaultRpcUrl: test.rpc, multicall3: true, tokens: [native(coin), ...test.tokens] },
  }
}

const ETH = { symbol: 'ETH', name: 'Ether', decimals: 18 }

export const CHAINS: readonly ChainDef[] = [
  evm('ethereum', ETH,
    {
      name: 'Ethereum',
      chainId: 1,
      rpc: 'https://ethereum-rpc.publicnode.com',
      tokens: [usdc('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'), usdt('0xdAC17F958D2ee523a2206206994597C13D831ec7'), eurc('0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c')],
    },
    {
      id: 'sepolia',
      name: 'Sepolia',
      chainId: 11155111,
      rpc: 'https://ethereum-sepolia-rpc.publicnode.com',
      tokens: [usdc('0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'), eurc('0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4')],
    }),
  evm('polygon', { symbol: 'POL', name: 'Polygon Ecosystem Token', decimals: 18 },
    { name: 'Polygon', chainId: 137, rpc: 'https://polygon-bor-rpc.publicnode.com', tokens: [usdc('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'), usdt('0xc2132D05D31c914a87C6611C10748AEb04B58e8F')] },
    { id: 'polygon-amoy', name: 'Polygon Amoy', chainId: 80002, rpc: 'https://polygon-amoy-bor-rpc.publicnode.com', tokens: [usdc('0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582')] }),
  evm('bsc', { symbol: 'BNB', name: 'BNB', decimals: 18 },
    // The BNB Chain dollar stablecoins use 18 decimals.
    {
      name: 'BNB Smart Chain',
      chainId: 56,
      rpc: 'https://bsc-rpc.publicnode.com',
      tokens: [usdc('0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 18), usdt('0x55d398326f99059fF775485246999027B3197955', 18)],
    },
    { id: 'bsc-testnet', name: 'BNB Smart Chain Testnet', chainId: 97, rpc: 'https://bsc-testnet-rpc.publicnode.com', tokens: [] }),
  evm('arbitrum', ETH,
    {
      name: 'Arbitrum One',
      chainId: 42161,
      rpc: 'https://arbitrum-one-rpc.publicnode.com',
      tokens: [usdc('0xaf88d065e77c8cC2239327C5EDb3A432268e5831'), usdt('0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9')],
    },
    { id: 'arbitrum-sepolia', name: 'Arbitrum Sepolia', chainId: 421614, rpc: 'https://arbitrum-sepolia-rpc.publicnode.com', tokens: [usdc('0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d')] }),
  evm('optimism', ETH,
    { name: 'OP Mainnet', chainId: 10, rpc: 'https://optimism-rpc.publicnode.com', tokens: [usdc('0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'), usdt('0x94b008aA00579c1307B0EF2c499aD98a8ce58e58')] },
    { id: 'optimism-sepolia', name: 'OP Sepolia', chainId: 11155420, rpc: 'https://optimism-sepolia-rpc.publicnode.com', tokens: [usdc('0x5fd84259d66Cd46123540766Be93DFE6D43130D7')] }),
  evm('base', ETH,
    { name: 'Base', chainId: 8453, rpc: 'https://base-rpc.publicnode.com', tokens: [usdc('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'), eurc('0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42')] },
    { id: 'base-sepolia', name: 'Base Sepolia', chainId: 84532, rpc: 'https://base-sepolia-rpc.publicnode.com', tokens: [usdc('0x036CbD53842c5426634e7929541eC2318f3dCF7e')] }),
  evm('avalanche', { symbol: 'AVAX', name: 'Avalanche', decimals: 18 },
    {
      name: 'Avalanche C-Chain',
      chainId: 43114,
      rpc: 'https://avalanche-c-chain-rpc.publicnode.com',
      tokens: [usdc('0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E'), usdt('0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7'), eurc('0xC891EB4cbdEFf6e073e859e987815Ed1505c2ACD')],
    },
    { id: 'avalanche-fuji', name: 'Avalanche Fuji', chainId: 43113, rpc: 'https://avalanche-fuji-c-chain-rpc.publicnode.com', tokens: [usdc('0x5425890298aed601595a70AB815c96711a31Bc65')] }),
  evm('celo', { symbol: 'CELO', name: 'Celo', decimals: 18 },
    { name: 'Celo', chainId: 42220, rpc: 'https://forno.celo.org', tokens: [
      usdc('0xcebA9300f2b948710d2653dD7B07f33A8B32118C'),
      { symbol: 'cUSD', name: 'Celo Dollar', decimals: 18, address: '0x765DE816845861e75A25fCA122bb6898B8B1282a' },
      { symbol: 'cEUR', name: 'Celo Euro', decimals: 18, address: '0xD8763CBa276a3738E6DE85b4b3bF5FDed6D6cA73' },
    ] },
    {
      id: 'celo-alfajores',
      name: 'Celo Alfajores',
      chainId: 44787,
      rpc: 'https://alfajores-forno.celo-testnet.org',
      tokens: [{ symbol: 'cUSD', name: 'Celo Dollar', decimals: 18, address: '0x874069Fa1Eb16D44d622F2e0Ca25eeA172369bC1' }],
    }),
  evm('flowevm', { symbol: 'FLOW', name: 'Flow', decimals: 18 },
    {
      name: 'Flow EVM',
      chainId: 747,
      rpc: 'https://mainnet.evm.nodes.onflow.org',
      tokens: [{ symbol: 'USDC.e', name: 'Bridged USD Coin (Stargate)', decimals: 6, address: '0xF1815bd50389c46847f0Bda824eC8da914045D14' }],
    },
    { id: 'flowevm-testnet', name: 'Flow EVM Testnet', chainId: 545, rpc: 'https://testnet.evm.nodes.onflow.org', tokens: [] }),
  evm('gnosis', { symbol: 'xDAI', name: 'xDai', decimals: 18 },
    { name: 'Gnosis', chainId: 100, rpc: 'https://gnosis-rpc.publicnode.com', tokens: [
      usdc('0xDDAfbb505ad214D7b80b1f830fcCc89B60fb7A83'),
      { symbol: 'EURe', name: 'Monerium EUR emoney', decimals: 18, address: '0xcB444e90D8198415266c6a2724b7900fb12FC56E' },
    ] },
    // Monerium's EURe on Chiado. Circle issues no USDC on Chiado: this USDC is the devnet's test
    // stablecoin (scripts/devnet/chain.ts), listed at gnosis's USDC address so the devnet's
    // swaps on its Chiado stand-in have a dollar token (docs/sandbox.md, "The devnet's networks").
    { id: 'gnosis-chiado', name: 'Gnosis Chiado', chainId: 10200, rpc: 'https://gnosis-chiado-rpc.publicnode.com', tokens: [
      usdc('0xDDAfbb505ad214D7b80b1f830fcCc89B60fb7A83'),
      { symbol: 'EURe', name: 'Monerium EUR emoney', decimals: 18, address: '0xb106ed7587365a16b6691a3D4B2A734f4E8268a2' },
    ] }),
  {
    id: 'solana',
    family: 'solana',
    nativeToken: { symbol: 'SOL', name: 'Solana', decimals: 9 },
    mainnet: {
      id: 'solana', name: 'Solana', isTestnet: false, chainId: null, defaultRpcUrl: 'https://api.mainnet-beta.solana.com', multicall3: false,
      tokens: [
        native({ symbol: 'SOL', name: 'Solana', decimals: 9 }),
        usdc('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
        usdt('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
        eurc('HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr'),
      ],
    },
    testnet: {
      id: 'solana-devnet', name: 'Solana Devnet', isTestnet: true, chainId: null, defaultRpcUrl: 'https://api.devnet.solana.com', multicall3: false,
      tokens: [native({ symbol: 'SOL', name: 'Solana', decimals: 9 }), usdc('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')],
    },
  },
]

const BY_FAMILY = new Map(CHAINS.map((c) => [c.id, c]))
const BY_REGISTRY = new Map(CHAINS.flatMap((c) => [[c.mainnet.id, { chain: c, network: c.mainnet }], [c.testnet.id, { chain: c, network: c.testnet }]] as const))

export interface ResolvedNetwork {
  chain: ChainDef
  network: NetworkDef
}

/** A family chain id or a registry id, as requests name chains. */
export function lookupChain(id: string): ResolvedNetwork | undefined {
  return BY_REGISTRY.get(id.toLowerCase())
}

/**
 * What a request's `chain` names, read the same way by every route: a family id
 * (`ethereum`) names the family and leaves the network to the wallet or to `isTestnet`;
 * a testnet's registry id (`sepolia`) names the family and pins the testnet.
 */
export function namedChain(id: string): { family: string; isTestnet?: true } | undefined {
  const found = lookupChain(id)
  if (!found) return undefined
  return found.network.id === found.chain.id ? { family: found.chain.id } : { family: found.chain.id, isTestnet: true }
}

/** Whether a request's `chain` names the network of a wallet (family id, and the network's flag). */
export function namesWalletNetwork(id: string, wallet: { chain: string; isTestnet: boolean }): boolean {
  const named = namedChain(id)
  return !!named && named.family === wallet.chain && (named.isTestnet === undefined || named.isTestnet === wallet.isTestnet)
}

export function chainByFamily(id: string): ChainDef | undefined {
  return BY_FAMILY.get(id.toLowerCase())
}

export function networkOf(chain: ChainDef, isTestnet: boolean): NetworkDef {
  return isTestnet ? chain.testnet : chain.mainnet
}

/**
 * The part of a tenant's settings the registry reads (the tenants module's `chains`), stated
 * here so that the registry imports no module: the sandbox aggregator, built below the
 * modules, reads it too.
 */
export interface ChainSettings {
  chains: {
    enabled: string[] | null
    rpc: Record<string, string>
    tokens: Record<string, string[]>
    customTokens: Record<string, Array<{ symbol: string; name: string; decimals: number; address: string }>>
  }
}

/**
 * Chains enabled for a tenant: `chains.enabled` lists family chain ids (both networks of
 * each), `null` means every default chain. Unknown ids in the list are ignored.
 */
export function chainEnabled(settings: ChainSettings | null, chainId: string): boolean {
  if (!BY_FAMILY.has(chainId)) return false
  const enabled = settings?.chains.enabled
  return enabled == null || enabled.map((s) => s.toLowerCase()).includes(chainId)
}

/**
 * The tokens active for a tenant on one network. Without `chains.tokens[<registry id>]`
 * (or, for both networks, `chains.tokens[<family id>]`) every seeded token is active;
 * with it, only the tokens whose symbol or address it lists (case-insensitive).
 */
export function activeTokens(settings: ChainSettings | null, chain: ChainDef, network: NetworkDef): TokenDef[] {
  const all = [...network.tokens, ...customTokensOf(settings, chain, network)]
  const list = settings?.chains.tokens?.[network.id] ?? settings?.chains.tokens?.[chain.id]
  if (!list) return all
  const wanted = new Set(list.map((s) => s.toLowerCase()))
  return all.filter((tk) => wanted.has(tk.symbol.toLowerCase()) || (tk.address !== null && wanted.has(tk.address.toLowerCase())))
}

/**
 * Tokens a tenant added to a network (`chains.customTokens[<registry id>]`). Entries whose
 * address is not valid for the family, or that repeat a seeded address, are ignored.
 */
function customTokensOf(settings: ChainSettings | null, chain: ChainDef, network: NetworkDef): TokenDef[] {
  const list = settings?.chains.customTokens?.[network.id] ?? []
  const seeded = new Set(network.tokens.map((tk) => tk.address?.toLowerCase()))
  const valid = chain.family === 'evm' ? /^0x[0-9a-fA-F]{40}$/ : /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
  return list
    .filter((tk) => valid.test(tk.address) && !seeded.has(tk.address.toLowerCase()))
    .map((tk) => ({ symbol: tk.symbol, name: tk.name, decimals: tk.decimals, address: tk.address }))
}

/** RPC address of a network: the tenant's `chains.rpc[id]`, else RPC_URL_<ID>, else the public default. */
export function rpcUrlFor(config: Pick<Config, 'rpcUrls'>, settings: ChainSettings | null, network: NetworkDef): string {
  return settings?.chains.rpc?.[network.id] ?? config.rpcUrls[network.id] ?? network.defaultRpcUrl
}

/** What the chain adapter needs for a wallet's network, and the tokens active on it for the tenant. */
export function endpointFor(config: Pick<Config, 'rpcUrls'>, settings: ChainSettings | null, chainId: string, isTestnet: boolean): { endpoint: ChainEndpoint; tokens: TokenDef[] } {
  const chain = chainByFamily(chainId)
  if (!chain) throw new Error(`unknown chain ${chainId}`)
  const network = networkOf(chain, isTestnet)
  return {
    endpoint: { registryId: network.id, family: chain.family, rpcUrl: rpcUrlFor(config, settings, network), expectedChainId: network.chainId, multicall3: network.multicall3 },
    tokens: activeTokens(settings, chain, network),
  }
}
