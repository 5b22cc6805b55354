/**
 * ERC-4337 on the test node: anvil (evm-node.ts) with EntryPoint v0.8 and Simple7702Account at
 * their canonical addresses, SlipwayPaymaster for a paymaster signer with a deposit, and alto
 * (Pimlico's bundler) running against it (scripts/devnet/aa.ts). One per test file: alto takes
 * a few seconds to start.
 */
import { defineChain, parseEther, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { deployPaymaster, installAccountAbstraction, startAlto, type AltoBundler, type DevnetSigner } from '../../scripts/devnet/aa'
import { FUNDER_KEY, startLocalChain, type LocalChain } from './evm-node'

export interface AaNode {
  node: LocalChain
  signer: DevnetSigner
  bundler: AltoBundler
  /** the paymaster signer's key (what Slipway holds sealed) */
  paymasterSignerKey: Hex
  paymaster: Address
  /** starts the bundler again (after `bundler.stop()`), with the same keys */
  restartBundler(opts?: { bundleMode?: 'auto' | 'manual' }): Promise<AltoBundler>
  stop(): Promise<void>
}

export async function startAaNode(opts: { chainId?: number; depositWei?: bigint; bundleMode?: 'auto' | 'manual'; paymasterSignerKey?: Hex } = {}): Promise<AaNode> {
  const node = await startLocalChain({ chainId: opts.chainId ?? 1337 })
  try {
    const chain = defineChain({ id: node.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.url] } } })
    const signer: DevnetSigner = { chain, rpcUrl: node.url, account: privateKeyToAccount(FUNDER_KEY) }
    await installAccountAbstraction(signer, (m, p) => node.rpc(m, p))
    const paymasterSignerKey = opts.paymasterSignerKey ?? generatePrivateKey()
    const paymaster = await deployPaymaster(signer, privateKeyToAccount(paymasterSignerKey).address, opts.depositWei ?? parseEther('10'))
    const executorKey = generatePrivateKey()
    const utilityKey = generatePrivateKey()
    for (const k of [executorKey, utilityKey]) await node.rpc('anvil_setBalance', [privateKeyToAccount(k).address, `0x${parseEther('100').toString(16)}`])
    let port: number | undefined
    // a restart takes the same port: the app's BUNDLER_URL stays right
    const start = async (mode?: 'auto' | 'manual') => {
      const b = await startAlto({ rpcUrl: node.url, executorKeys: [executorKey], utilityKey, bundleMode: mode, port })
      port = b.port
      return b
    }
    const aa: AaNode = {
      node, signer, paymasterSignerKey, paymaster,
      bundler: await start(opts.bundleMode),
      async restartBundler(o = {}) {
        aa.bundler = await start(o.bundleMode)
        return aa.bundler
      },
      async stop() {
        await aa.bundler.stop()
        await node.stop()
      },
    }
    return aa
  } catch (err) {
    await node.stop()
    throw err
  }
}
