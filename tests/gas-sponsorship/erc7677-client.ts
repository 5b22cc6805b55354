/**
 * An ERC-7677 client of the gas world: a non-custodial wallet (a key the test holds) with viem's
 * paymaster and bundler clients, hand-made ERC-7677 calls and user operation drafts.
 */
import { expect } from 'bun:test'
import { encodeFunctionData, erc20Abi, http, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { createBundlerClient, createPaymasterClient, formatUserOperationRequest, toSimple7702SmartAccount, type UserOperation } from 'viem/account-abstraction'
import { clientWallet } from '../transactions/helpers'
import { SIMPLE_7702_ACCOUNT } from '../../scripts/devnet/aa'
import type { SignedInUser } from '@tests/helpers/factories'
import type { GasWorld } from './world'

export function erc7677Client(w: GasWorld) {
  const rpcUrl = () => `${w.http.url}/v1/gas-sponsorship/ethereum/rpc`

  async function nonCustodial(u: SignedInUser, owner: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())) {
    await clientWallet(w.f.api, u, owner)
    await w.aa.node.sendToken(owner.address, 10_000_000n)
    const account = await toSimple7702SmartAccount({ client: w.pub as never, owner })
    const paymaster = createPaymasterClient({ transport: http(rpcUrl(), { fetchOptions: { headers: { authorization: `Bearer ${u.accessToken}` } } }) })
    const bundler = createBundlerClient({ client: w.pub as never, transport: http(w.aa.bundler.url), paymaster, pollingInterval: 200 })
    return { owner, account, bundler, paymaster }
  }

  const transfer = (to: Hex, amount: bigint) => ({ to: w.aa.node.tokenAddress, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) })

  async function authorize(owner: PrivateKeyAccount) {
    return owner.signAuthorization({ address: SIMPLE_7702_ACCOUNT, chainId: 1, nonce: await w.pub.getTransactionCount({ address: owner.address }) })
  }

  /** an ERC-7677 call made by hand (viem's client throws on refusals, without the error's data) */
  async function pm(u: SignedInUser, method: string, op: Record<string, unknown>) {
    const res = await fetch(rpcUrl(), {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${u.accessToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [op, '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', '0x1', {}] }),
    })
    expect(res.status).toBe(200)
    return (await res.json()) as { result?: { paymaster: Hex; paymasterData: Hex }; error?: { code: number; message: string; data?: { status: number; code: string } } }
  }

  /** a user operation ready for pm_getPaymasterData (gas set by hand: 400,000 in all, 2 gwei) */
  async function draftOp(owner: PrivateKeyAccount, calls: Array<{ to: Hex; data: Hex }>, nonce = 0n): Promise<Record<string, unknown>> {
    const account = await toSimple7702SmartAccount({ client: w.pub as never, owner })
    const callData = await account.encodeCalls(calls.map((c) => ({ ...c, value: 0n })))
    return formatUserOperationRequest({
      sender: owner.address, nonce, factory: '0x7702', factoryData: '0x', callData, callGasLimit: 150_000n, verificationGasLimit: 150_000n, preVerificationGas: 20_000n,
      maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, paymasterVerificationGasLimit: 80_000n, paymasterPostOpGasLimit: 0n, signature: '0x',
    } as UserOperation<'0.8'>) as unknown as Record<string, unknown>
  }
  const DRAFT_COST = (150_000n + 150_000n + 20_000n + 80_000n) * 2_000_000_000n
  return { rpcUrl, nonCustodial, transfer, authorize, pm, draftOp, DRAFT_COST }
}
