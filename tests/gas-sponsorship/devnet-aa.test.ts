/**
 * The ERC-4337 devnet itself (scripts/devnet/aa.ts): EntryPoint v0.8 and Simple7702Account at
 * their canonical addresses, SlipwayPaymaster, and alto bundling a sponsored 7702 user operation
 * from an EOA with 0 ETH, paid for by the paymaster's deposit, signed as the adapter signs it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createPublicClient, encodeFunctionData, erc20Abi, http, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createBundlerClient, entryPoint08Abi, entryPoint08Address, toSimple7702SmartAccount } from 'viem/account-abstraction'
import { encodePaymasterData, signPaymasterData, STUB_PAYMASTER_SIGNATURE, paymasterHash } from '@/adapters/bundler/paymaster-data'
import paymasterArtifact from '../../scripts/devnet/SlipwayPaymaster.json'
import { SIMPLE_7702_ACCOUNT } from '../../scripts/devnet/aa'
import { startAaNode, type AaNode } from '@tests/helpers/aa-node'

let aa: AaNode
beforeAll(async () => {
  aa = await startAaNode()
}, 120_000)
afterAll(() => aa?.stop())

const window = () => ({ validUntil: Math.floor(Date.now() / 1000) + 600, validAfter: 0 })

describe('ERC-4337 v0.8 devnet', () => {
  test('EntryPoint v0.8 and Simple7702Account are at their canonical addresses, and alto serves the EntryPoint', async () => {
    const pub = createPublicClient({ chain: aa.signer.chain, transport: http(aa.node.url) })
    expect((await pub.getCode({ address: entryPoint08Address }))?.length).toBeGreaterThan(1000)
    expect((await pub.getCode({ address: SIMPLE_7702_ACCOUNT }))?.length).toBeGreaterThan(1000)
    const res = await fetch(aa.bundler.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }) })
    expect(((await res.json()) as { result: string[] }).result.map((a) => a.toLowerCase())).toContain(entryPoint08Address.toLowerCase())
  })

  test('a 0-ETH EOA sends USDC as a sponsored 7702 user operation: delegated afterwards, still 0 ETH, the deposit paid', async () => {
    const pub = createPublicClient({ chain: aa.signer.chain, transport: http(aa.node.url), pollingInterval: 100 })
    const owner = privateKeyToAccount(generatePrivateKey())
    const to = privateKeyToAccount(generatePrivateKey()).address
    await aa.node.sendToken(owner.address, 10_000_000n)
    const account = await toSimple7702SmartAccount({ client: pub, owner })
    const signer = privateKeyToAccount(aa.paymasterSignerKey)
    const w = window()
    const bundler = createBundlerClient({
      client: pub, transport: http(aa.bundler.url), pollingInterval: 200,
      paymaster: {
        async getPaymasterStubData() {
          return { paymaster: aa.paymaster, paymasterData: encodePaymasterData(w, STUB_PAYMASTER_SIGNATURE), paymasterVerificationGasLimit: 60_000n, paymasterPostOpGasLimit: 0n }
        },
        async getPaymasterData(op) {
          return { paymaster: aa.paymaster, paymasterData: await signPaymasterData(signer, op as never, aa.node.chainId, aa.paymaster, w) }
        },
      },
    })
    const depositBefore = await pub.readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'balanceOf', args: [aa.paymaster] })
    const authorization = await owner.signAuthorization({ address: SIMPLE_7702_ACCOUNT, chainId: aa.node.chainId, nonce: await pub.getTransactionCount({ address: owner.address }) })
    const hash = await bundler.sendUserOperation({
      account, authorization,
      calls: [{ to: aa.node.tokenAddress, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, 5_000_000n] }) }],
    })
    const receipt = await bundler.waitForUserOperationReceipt({ hash, timeout: 30_000 })
    expect(receipt.success).toBe(true)
    expect(await pub.readContract({ address: aa.node.tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [to] })).toBe(5_000_000n)
    expect((await pub.getCode({ address: owner.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`)
    expect(await pub.getBalance({ address: owner.address })).toBe(0n)
    const depositAfter = await pub.readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'balanceOf', args: [aa.paymaster] })
    expect(depositAfter).toBeLessThan(depositBefore)
    expect(depositBefore - depositAfter).toBe(receipt.actualGasCost)
  }, 60_000)

  test('the off-chain hash is the contract\'s getHash', async () => {
    const pub = createPublicClient({ chain: aa.signer.chain, transport: http(aa.node.url) })
    const op = {
      sender: privateKeyToAccount(generatePrivateKey()).address, nonce: 7n, factory: '0x7702' as const, factoryData: '0x' as Hex, callData: '0x1234' as Hex,
      callGasLimit: 100_000n, verificationGasLimit: 200_000n, preVerificationGas: 50_000n, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
      paymasterVerificationGasLimit: 60_000n, paymasterPostOpGasLimit: 0n,
    }
    const w = window()
    const { toPackedUserOperation } = await import('viem/account-abstraction')
    const packed = toPackedUserOperation({ ...op, signature: '0x', paymaster: aa.paymaster, paymasterData: encodePaymasterData(w, STUB_PAYMASTER_SIGNATURE) } as never)
    const onChain = await pub.readContract({ address: aa.paymaster, abi: paymasterArtifact.abi, functionName: 'getHash', args: [packed, w.validUntil, w.validAfter] })
    expect(onChain).toBe(paymasterHash(op, aa.node.chainId, aa.paymaster, w))
  })
})
