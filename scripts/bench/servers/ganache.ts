/** A ganache node in its own process for benchmarks and the chaos run: chain id 1, one funded account; prints its URL. GANACHE_DB_PATH: where it keeps the chain. */
import ganache from 'ganache'

const server = ganache.server({
  logging: { quiet: true },
  chain: { chainId: 1, hardfork: 'shanghai' },
  // Interval mining, like a real chain: submissions are answered at once and every
  // block takes what is in the pool. (Ganache's instant mining holds requests under
  // concurrent sends from one account and stalls.)
  miner: { blockTime: Number(process.env.GANACHE_BLOCK_TIME ?? 1) },
  // a folder of the caller's: ganache's own default is one under the temp directory, left behind when the process is killed
  ...(process.env.GANACHE_DB_PATH ? { database: { dbPath: process.env.GANACHE_DB_PATH } } : {}),
  wallet: { accounts: [{ secretKey: process.env.FUNDER_KEY!, balance: '0x' + (10n ** 24n).toString(16) }] },
} as never)
await server.listen(0, '127.0.0.1')
console.log(`http://127.0.0.1:${(server.address() as { port: number }).port}`)
