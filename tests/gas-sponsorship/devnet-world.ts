/**
 * The devnet (scripts/devnet/chain.ts: Sepolia with its test USDC and Aave pool) with
 * ERC-4337 installed on its Sepolia node as `npm run devnet` does (EntryPoint v0.8,
 * Simple7702Account, SlipwayPaymaster with a deposit, alto), and a Slipway app pointed at it
 * with BUNDLER_URL_SEPOLIA, PAYMASTER_ADDRESS_SEPOLIA and the paymaster signer, served over
 * HTTP beside the bank ramp simulator (tests/ramp/world.ts): sponsored lending, payouts and
 * agent executions run against it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, parseAbi, parseEther, type Address, type Hex } from 'viem'
import { entryPoint08Abi, entryPoint08Address } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { deployPaymaster, installAccountAbstraction, startAlto, type AltoBundler, type DevnetSigner } from '../../scripts/devnet/aa'
import { DEVNET_CHAIN_ID, DEVNET_KEYS, DEVNET_USDC, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { systemClock } from '@/lib/clock'
import { evmTransferVerifier } from '@/adapters/chain/transfer-check'
import { rampWorld, type RampWorld } from '../ramp/world'

export interface SponsoredDevnet {
  devnet: Devnet
  bundler: AltoBundler
  paymaster: Address
  w: RampWorld
  pub: ReturnType<typeof createPublicClient>
  usdc(who: Address): Promise<bigint>
  mintUsdc(to: Address, units: bigint): Promise<void>
  deposit(): Promise<bigint>
  stop(): Promise<void>
}

const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])

export async function sponsoredDevnet(): Promise<SponsoredDevnet> {
  const dir = mkdtempSync(join(tmpdir(), 'gas-devnet-'))
  const devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  const chain = defineChain({ id: DEVNET_CHAIN_ID, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [devnet.url] } } })
  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
    return ((await res.json()) as { result: unknown }).result
  }
  const signer: DevnetSigner = { chain, rpcUrl: devnet.url, account: privateKeyToAccount(DEVNET_KEYS.funder) }
  await installAccountAbstraction(signer, rpc)
  const signerKey = generatePrivateKey()
  const paymaster = await deployPaymaster(signer, privateKeyToAccount(signerKey).address, parseEther('10'))
  const [executorKey, utilityKey] = [generatePrivateKey(), generatePrivateKey()]
  for (const k of [executorKey, utilityKey]) await rpc('anvil_setBalance', [privateKeyToAccount(k).address, `0x${parseEther('100').toString(16)}`])
  const bundler = await startAlto({ rpcUrl: devnet.url, executorKeys: [executorKey], utilityKey })
  const w = await rampWorld({
    app: {
      clock: systemClock,
      env: {
        RPC_URL_SEPOLIA: devnet.url, RPC_TIMEOUT_MS: '5000', BUNDLER_URL_SEPOLIA: bundler.url, PAYMASTER_ADDRESS_SEPOLIA: paymaster,
        PAYMASTER_SIGNER_PRIVATE_KEY: signerKey as Hex,
      },
    },
    // the simulator reads each sell's transfer back from the chain before it pays out
    sim: { verifier: evmTransferVerifier({ rpcUrl: devnet.url, tokenAddress: DEVNET_USDC }) },
  })
  const pub = createPublicClient({ chain, transport: http(devnet.url), pollingInterval: 100 })
  const funder = createWalletClient({ chain, transport: http(devnet.url), account: privateKeyToAccount(DEVNET_KEYS.funder) })
  return {
    devnet, bundler, paymaster, w, pub,
    usdc: (who) => pub.readContract({ address: DEVNET_USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] }),
    async mintUsdc(to, units) {
      const hash = await funder.writeContract({ address: DEVNET_USDC, abi: mintAbi, functionName: 'mint', args: [to, units] })
      await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    },
    deposit: () => pub.readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'balanceOf', args: [paymaster] }),
    async stop() {
      await w.stop()
      await bundler.stop()
      await devnet.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
