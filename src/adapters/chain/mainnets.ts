/**
 * Known mainnets, from viem's chain definitions: every chain not marked `testnet: true`,
 * so the list follows viem's releases instead of a hand list going stale. The local
 * development chains viem also leaves unmarked (Localhost 1337, and Hardhat / Anvil /
 * Foundry 31337, which anvil reports unless told another id) are not mainnets. An id that viem gives both to a
 * mainnet and to a testnet counts as a mainnet: refusing a test network by mistake costs a
 * configuration change, paying on a mainnet by mistake costs money.
 */
let mainnets: Promise<Map<number, string>> | undefined

async function load(): Promise<Map<number, string>> {
  // loaded on first use: viem/chains is large and only the simulator's chain settings need it
  const chains = await import('viem/chains')
  const local = new Set<number>([chains.localhost.id, chains.hardhat.id, chains.anvil.id, chains.foundry.id])
  const out = new Map<number, string>()
  for (const c of Object.values(chains) as Array<{ id?: unknown; name?: string; testnet?: boolean }>) {
    if (typeof c?.id !== 'number' || c.testnet === true || local.has(c.id)) continue
    if (!out.has(c.id)) out.set(c.id, c.name ?? `chain ${c.id}`)
  }
  return out
}

/** The name of the known mainnet with this chain id, or null. */
export async function knownMainnet(chainId: number): Promise<string | null> {
  return (await (mainnets ??= load())).get(chainId) ?? null
}
