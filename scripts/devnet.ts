/**
 * `npm run devnet`: every sandbox flow on one offline machine. Starts the devnet's chains
 * (scripts/devnet/chain.ts: two anvil nodes on the Prague fork, ready in about a second):
 * Sepolia's chain id on 127.0.0.1:8545 (the test stablecoin at the
 * registry's Sepolia USDC address, funded keys for the bank ramp simulator and the faucet) and
 * a stand-in for gnosis-chiado (Gnosis's testnet, chain id 10200) on the next port, for swaps (the
 * registry's gnosis-chiado USDC and EURe, the sandbox swap aggregator's router, funded): gnosis
 * wallets on the devnet are testnet wallets (`isTestnet: true`). It writes the settings that point Slipway at them
 * to `.env.devnet` (which `npm start` reads), and runs until Ctrl-C. The chains are kept in
 * state files (anvil's --state: loaded at start, written at Ctrl-C and every 10 s),
 * `.devnet/state.json` and `.devnet/state-chiado.json` unless `--state FILE` names another, so
 * a restart keeps balances.
 *
 *   npm run devnet                          # then, in another terminal: npm start
 *   npm run devnet -- --port 8546           # another port (Chiado on the next one)
 *   npm run devnet -- --chiado-port 9545    # Chiado's node elsewhere
 *   npm run devnet -- --x402-port 9547      # the x402 merchant elsewhere (default: the port after Chiado's)
 *   npm run devnet -- --state ~/sandbox.json   # keep the chains there (Chiado's in ~/sandbox-chiado.json)
 *   npm run devnet -- --block-time 0        # a block per transaction instead of one a second
 *   npm run devnet -- --reset               # forget both chains (of --state or the default) and start afresh
 *   npm run devnet -- --port 0 --env-file /tmp/x/.env.devnet --dir /tmp/x/chains
 *                                           # free ports for both nodes, the env file and the
 *                                           # chains' folder elsewhere (tests use this)
 *
 * It also serves an x402 merchant (scripts/devnet/x402.ts: a paid resource and its facilitator,
 * settling on the Sepolia-id chain) and routes `https://x402.devnet.test` to it for Slipway
 * (WEBHOOK_DEV_ROUTES in .env.devnet), so the agent payments' x402 rail runs offline.
 *
 * It serves Solana's devnet too (scripts/devnet/solana.ts: LiteSVM behind JSON-RPC, on
 * 127.0.0.1:8899 or `--solana-port`, kept in `.devnet/solana.json`): RPC_URL_SOLANA_DEVNET in
 * .env.devnet, `requestAirdrop` for SOL and `devnet_mintTo` for the registry's devnet USDC.
 *
 * Gas sponsorship (docs/gas-sponsorship.md): on the Sepolia-id chain and on the gnosis-chiado
 * stand-in, EntryPoint v0.8 and Simple7702Account at their canonical addresses, SlipwayPaymaster
 * with 10 of the native coin deposited and Pimlico's alto bundler, on 127.0.0.1:4337 and :4338
 * (BUNDLER_URL_SEPOLIA, PAYMASTER_ADDRESS_SEPOLIA, BUNDLER_URL_GNOSIS_CHIADO,
 * PAYMASTER_ADDRESS_GNOSIS_CHIADO and PAYMASTER_SIGNER_PRIVATE_KEY in .env.devnet).
 *
 * To go back to the public testnets, stop it and delete `.env.devnet`.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { DEVNET_CHAIN_ID, DEVNET_CHIADO_CHAIN_ID, DEVNET_USDC, chiadoStateFile, startDevnet } from './devnet/chain'
import { startX402Merchant, WEATHER_PRICE } from './devnet/x402'
import { DEVNET_SOLANA_USDC, SOLANA_DEVNET_PORT, startSolanaDevnet } from './devnet/solana'
import { privateKeyToAccount } from 'viem/accounts'
import { defineChain, keccak256, parseEther, toBytes } from 'viem'
import { deployPaymaster, depositFor, depositOf, installAccountAbstraction, startAlto, type DevnetSigner } from './devnet/aa'

const ROOT = join(import.meta.dir, '..')
const args = process.argv.slice(2)
const flag = (name: string) => args.includes(`--${name}`)
const value = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const port = Number(value('port') ?? 8545)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port: "${value('port')}" is not a port`)
  process.exit(2)
}
// port 0: a free port for each node
// --gnosis-port: the older name of the flag, from when the node stood in for gnosis mainnet
const chiadoPort = Number(value('chiado-port') ?? value('gnosis-port') ?? (port === 0 ? 0 : port + 1))
if (!Number.isInteger(chiadoPort) || chiadoPort < 0 || chiadoPort > 65535) {
  console.error(`--chiado-port: "${value('chiado-port')}" is not a port`)
  process.exit(2)
}
const x402Port = Number(value('x402-port') ?? (port === 0 ? 0 : chiadoPort + 1))
if (!Number.isInteger(x402Port) || x402Port < 0 || x402Port > 65535) {
  console.error(`--x402-port: "${value('x402-port')}" is not a port`)
  process.exit(2)
}
const dir = resolve(value('dir') ?? join(ROOT, '.devnet'))
const envFile = resolve(value('env-file') ?? join(ROOT, '.env.devnet'))
const state = resolve(value('state') ?? join(dir, 'state.json'))
const blockTime = Number(value('block-time') ?? 1)
if (!Number.isFinite(blockTime) || blockTime < 0) {
  console.error(`--block-time: "${value('block-time')}" is not a number of seconds`)
  process.exit(2)
}
if (flag('reset')) for (const file of [state, chiadoStateFile(state)]) rmSync(file, { force: true })
mkdirSync(dirname(state), { recursive: true })

const loaded = existsSync(state)
let devnet
try {
  devnet = await startDevnet({ port, chiadoPort, state, blockTime })
} catch (err) {
  const e = err as { code?: string; message?: string }
  console.error(e.code === 'EADDRINUSE' || /in use/i.test(e.message ?? '') ? `devnet: port ${port} or ${chiadoPort} is in use (another devnet?); try --port or --chiado-port` : `devnet: ${e.message ?? err}`)
  process.exit(1)
}
let merchant
try {
  merchant = await startX402Merchant({ rpcUrl: devnet.url, chainId: DEVNET_CHAIN_ID, usdc: DEVNET_USDC, port: x402Port })
} catch (err) {
  await devnet.stop()
  console.error(`devnet: the x402 merchant cannot listen on port ${x402Port} (${(err as Error).message}); try --x402-port`)
  process.exit(1)
}
const solanaPort = Number(value('solana-port') ?? (port === 0 ? 0 : SOLANA_DEVNET_PORT))
const solana = await startSolanaDevnet({ port: solanaPort, statePath: join(dir, 'solana.json') }).catch(async (err) => {
  await merchant.stop()
  await devnet.stop()
  console.error(`devnet: the Solana node cannot listen on port ${solanaPort} (${(err as Error).message}); try --solana-port`)
  process.exit(1)
})
// ERC-4337 on both EVM nodes, the Sepolia-id one and the gnosis-chiado stand-in (gas sponsorship,
// docs/gas-sponsorship.md): EntryPoint v0.8 and Simple7702Account at their canonical addresses,
// SlipwayPaymaster for a devnet signer (public, like every devnet key) with 10 of the native coin
// deposited, and an alto bundling against each node (4337 and 4338)
const devKey = (label: string) => keccak256(toBytes(`slipway devnet ${label}`))
const paymasterSignerKey = devKey('paymaster signer')
const deployerKey = devnet.env.SANDBOX_FAUCET_PRIVATE_KEY as `0x${string}`
const nodeRpc = (url: string) => async (method: string, params: unknown[]) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return ((await res.json()) as { result?: unknown }).result
}
async function sponsorship(chain: { id: number; name: string; coin: string }, url: string, keys: string, altoPort: number) {
  const signer: DevnetSigner = {
    chain: defineChain({ id: chain.id, name: chain.name, nativeCurrency: { name: chain.coin, symbol: chain.coin, decimals: 18 }, rpcUrls: { default: { http: [url] } } }),
    rpcUrl: url,
    account: privateKeyToAccount(deployerKey),
  }
  const rpc = nodeRpc(url)
  await installAccountAbstraction(signer, rpc)
  const paymaster = await deployPaymaster(signer, privateKeyToAccount(paymasterSignerKey).address, 0n)
  if ((await depositOf(signer, paymaster)) < parseEther('1')) await depositFor(signer, paymaster, parseEther('10'))
  for (const k of [`bundler executor${keys}`, `bundler utility${keys}`]) await rpc('anvil_setBalance', [privateKeyToAccount(devKey(k)).address, `0x${parseEther('100').toString(16)}`])
  const bundler = await startAlto({ rpcUrl: url, executorKeys: [devKey(`bundler executor${keys}`)], utilityKey: devKey(`bundler utility${keys}`), port: port === 0 ? undefined : altoPort })
  return { bundler, paymaster }
}
let sponsored
try {
  sponsored = await Promise.all([
    sponsorship({ id: DEVNET_CHAIN_ID, name: 'devnet', coin: 'ETH' }, devnet.url, '', 4337),
    sponsorship({ id: DEVNET_CHIADO_CHAIN_ID, name: 'devnet-chiado', coin: 'xDAI' }, devnet.chiadoUrl, ' chiado', 4338),
  ])
  const [sepolia, chiado] = sponsored
  Object.assign(devnet.env, {
    BUNDLER_URL_SEPOLIA: sepolia.bundler.url, PAYMASTER_ADDRESS_SEPOLIA: sepolia.paymaster,
    BUNDLER_URL_GNOSIS_CHIADO: chiado.bundler.url, PAYMASTER_ADDRESS_GNOSIS_CHIADO: chiado.paymaster,
    PAYMASTER_SIGNER_PRIVATE_KEY: paymasterSignerKey,
  })
} catch (err) {
  await merchant.stop()
  await solana.stop()
  await devnet.stop()
  console.error(`devnet: gas sponsorship (EntryPoint, paymaster, alto on ports 4337 and 4338) did not start: ${(err as Error).message.split('\n')[0]}`)
  process.exit(1)
}
const bundlers = sponsored.map((x) => x.bundler)
/** the https host Slipway's x402 rail is given for the devnet merchant (a reserved name, routed to it; development only) */
const X402_HOST = 'x402.devnet.test'
const settings = { ...devnet.env, ...solana.env, WEBHOOK_DEV_ROUTES: `${X402_HOST}=${merchant.url}` }
// the file and the names it sets, so Slipway's start-up line says which devnet settings it read
const env = { ...settings, SLIPWAY_DEVNET: envFile, SLIPWAY_DEVNET_SETTINGS: Object.keys(settings).join(',') }
mkdirSync(dirname(envFile), { recursive: true })
// written whole under another name, then renamed: a reader never sees half a file
writeFileSync(`${envFile}.tmp`, [
  `# Written by \`npm run devnet\` (${new Date().toISOString()}): Slipway's sandbox on the devnet chain.`,
  '# `npm start` reads this file after .env; delete it to use the public testnets again. The keys are public, devnet only.',
  ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
  '',
].join('\n'))
renameSync(`${envFile}.tmp`, envFile)
const shown = (p: string) => (relative(ROOT, p).startsWith('..') ? p : relative(ROOT, p))
console.log(`devnet: chain ${devnet.chainId} (Sepolia's id, Prague fork) at ${devnet.url}, kept in ${shown(state)}${loaded ? ' (loaded from it)' : ''}`)
console.log(`devnet: test USDC (permit, transferWithAuthorization, open mint) at ${devnet.env.BANK_RAMP_SIMULATOR_TOKEN_ADDRESS}`)
console.log(`devnet: chain 10200 (standing in for gnosis-chiado, for swaps: gnosis wallets with isTestnet true) at ${devnet.chiadoUrl}, kept in ${shown(chiadoStateFile(state))}: USDC, EURe, and the sandbox swap router at ${devnet.env.SANDBOX_SWAP_ROUTER_ADDRESS}`)
console.log(`devnet: gasless swaps (EURe to xDAI) on, relayed by ${privateKeyToAccount(devnet.env.SWAP_GASLESS_RELAYER_PRIVATE_KEY as `0x${string}`).address} (allowed by the router, 100 xDAI of gas)`)
console.log(`devnet: x402 merchant at ${merchant.url} (https://${X402_HOST} for Slipway): GET /weather costs ${Number(WEATHER_PRICE) / 1e6} USDC (x402 v2; /weather-v1 in version 1), paid to ${merchant.payTo}, settled by ${merchant.facilitator}`)
console.log(`devnet: Solana (solana-devnet, LiteSVM) at ${solana.url}: devnet USDC mint ${DEVNET_SOLANA_USDC}; SOL: method requestAirdrop [address, lamports]; USDC: method devnet_mintTo [owner, mint, amount]`)
console.log(`devnet: wrote ${shown(envFile)} (${Object.keys(settings).join(', ')}); start Slipway with \`npm start\` in another terminal (it reads .env.devnet;`
  + ' a Slipway already running must be restarted to read it: its start-up line "devnet settings read" names the file)')
console.log(`devnet: gas sponsorship on both EVM nodes: EntryPoint v0.8 and Simple7702Account at their canonical addresses, paymaster ${devnet.env.PAYMASTER_ADDRESS_SEPOLIA}`
  + ` (sepolia) and ${devnet.env.PAYMASTER_ADDRESS_GNOSIS_CHIADO} (gnosis-chiado), alto at ${bundlers.map((b) => b.url).join(' and ')} (docs/gas-sponsorship.md)`)
console.log('devnet: gas and test USDC for a sandbox wallet: POST /v1/sandbox/faucet { walletId, stablecoin? }')
console.log(`devnet: gas on gnosis-chiado for an address: curl -s ${devnet.chiadoUrl} -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"anvil_setBalance","params":["<address>","0xde0b6b3a7640000"]}'`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    await merchant.stop()
    await Promise.all(bundlers.map((b) => b.stop()))
    await solana.stop()
    await devnet.stop()
    process.exit(0)
  })
}
