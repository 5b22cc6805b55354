/**
 * The bundler adapter: user operations from an EOA delegated (EIP-7702) to Simple7702Account,
 * through EntryPoint v0.8 and an ERC-4337 bundler, with viem's MIT account-abstraction module.
 *
 * A sponsored operation is made in three steps, so the caller can hold the sponsorship and
 * record the operation in one write between them: `estimate` (the bundler estimates the gas
 * with a stub paymaster signature), `sign` (CPU only: the paymaster's data from the caller's
 * signer, the EIP-7702 authorization on first use, the owner's signature, the hash), `send`.
 */
import { createPublicClient, createWalletClient, http, type Address, type LocalAccount, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  createBundlerClient, entryPoint08Abi, entryPoint08Address, formatUserOperationRequest, getUserOperationHash, toSimple7702SmartAccount,
  type BundlerClient, type UserOperation,
} from 'viem/account-abstraction'
import { encodePaymasterData, signPaymasterData, STUB_PAYMASTER_SIGNATURE, type PaymasterWindow, type SponsoredUserOperation } from './paymaster-data'
import {
  BundlerError, type BundlerEndpoint, type EstimatedUserOp, type Hex, type SendUserOpOutcome, type SignedUserOp, type UserOpCall, type UserOpJson, type UserOpReceipt,
} from './port'

export * from './port'
export { paymasterHash, signPaymasterData, encodePaymasterData, STUB_PAYMASTER_SIGNATURE } from './paymaster-data'
export type { PaymasterWindow, SponsoredUserOperation } from './paymaster-data'

/** the canonical Simple7702Account (eth-infinitism v0.8) a sponsored EOA delegates to */
export const SIMPLE_7702_ACCOUNT: Hex = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'
export const ENTRY_POINT_08: Hex = entryPoint08Address
/** the paymaster's verification gas: SlipwayPaymaster recovers one signature (about 30,000 used) */
const PAYMASTER_VERIFICATION_GAS = 80_000n

const STUB_AUTHORIZATION_SIGNATURE = {
  r: '0xfffffffffffffffffffffffffffffff000000000000000000000000000000000', s: '0x7aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', yParity: 1,
} as const

interface Draft {
  op: UserOperation<'0.8'>
  owner: LocalAccount
  endpoint: BundlerEndpoint
  authorizationNonce: number | null
}

function delegationOf(code: Hex | undefined): string | null {
  return code && code.toLowerCase().startsWith('0xef0100') ? `0x${code.slice(8)}`.toLowerCase() : null
}

export class BundlerGateway {
  private readonly publics = new Map<string, PublicClient>()
  constructor(private readonly timeoutMs: number, private readonly fetcher?: (system: string) => typeof fetch) {}

  private pub(e: BundlerEndpoint): PublicClient {
    const key = `${e.rpcUrl}|${e.chainId}`
    let c = this.publics.get(key)
    if (!c) {
      const chain = { id: e.chainId, name: e.network, nativeCurrency: { name: 'native', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [e.rpcUrl] } } }
      c = createPublicClient({ chain, transport: http(e.rpcUrl, { timeout: this.timeoutMs, fetchFn: this.fetcher?.(`rpc:${e.network}`) }) }) as PublicClient
      this.publics.set(key, c)
    }
    return c
  }

  private bundler(e: BundlerEndpoint): BundlerClient {
    return createBundlerClient({ client: this.pub(e), transport: http(e.bundlerUrl, { timeout: this.timeoutMs, retryCount: 0, fetchFn: this.fetcher?.(`bundler:${e.network}`) }) })
  }

  private async rpc<T>(e: BundlerEndpoint, method: string, params: unknown[]): Promise<T> {
    let res: Response
    try {
      const f = this.fetcher?.(`bundler:${e.network}`) ?? fetch
      res = await f(e.bundlerUrl, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      })
    } catch (err) {
      throw new BundlerError(`the bundler cannot be reached: ${(err as Error).message}`, 'unreachable')
    }
    const body = (await res.json().catch(() => null)) as { result?: T; error?: { message?: string } } | null
    if (!body) throw new BundlerError(`the bundler answered ${res.status} without JSON-RPC`, 'unreachable')
    if (body.error) throw new BundlerError(body.error.message ?? 'error', 'rejected')
    return body.result as T
  }

  /** the EntryPoints the bundler serves (lower case) */
  async supportedEntryPoints(e: BundlerEndpoint): Promise<string[]> {
    return (await this.rpc<string[]>(e, 'eth_supportedEntryPoints', [])).map((a) => a.toLowerCase())
  }

  /** the paymaster's deposit in EntryPoint v0.8 (wei) */
  async deposit(e: Pick<BundlerEndpoint, 'rpcUrl' | 'chainId' | 'network' | 'bundlerUrl' | 'paymaster'>): Promise<bigint> {
    return this.pub(e as BundlerEndpoint).readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'balanceOf', args: [e.paymaster] })
  }

  /** the address an EOA delegates to (EIP-7702), or null */
  async delegation(e: BundlerEndpoint, address: Hex): Promise<string | null> {
    return delegationOf(await this.pub(e).getCode({ address }))
  }

  /**
   * `calls` from the EOA of `ownerKey`, gas estimated by the bundler with a stub paymaster
   * signature; `nonceKey` (192 bits) gives concurrent operations of one sender nonces of their own.
   */
  async estimate(e: BundlerEndpoint, ownerKey: Hex, calls: UserOpCall[], nonceKey: bigint): Promise<EstimatedUserOp> {
    const pub = this.pub(e)
    const owner = privateKeyToAccount(ownerKey)
    const account = await toSimple7702SmartAccount({ client: pub, owner })
    const delegated = (await this.delegation(e, owner.address)) === SIMPLE_7702_ACCOUNT.toLowerCase()
    const authorizationNonce = delegated ? null : await pub.getTransactionCount({ address: owner.address, blockTag: 'pending' })
    const stubWindow = { validUntil: 0, validAfter: 0 }
    const nonce = await account.getNonce({ key: nonceKey })
    const stub = async () => ({
      paymaster: e.paymaster, paymasterData: encodePaymasterData(stubWindow, STUB_PAYMASTER_SIGNATURE),
      paymasterVerificationGasLimit: PAYMASTER_VERIFICATION_GAS, paymasterPostOpGasLimit: 0n, isFinal: true,
    })
    try {
      const op = await this.bundler(e).prepareUserOperation({
        account, calls, nonce,
        // estimated with a stub authorization of the right shape (as viem's own)
        ...(delegated ? {} : { authorization: { address: SIMPLE_7702_ACCOUNT, chainId: e.chainId, nonce: authorizationNonce!, ...STUB_AUTHORIZATION_SIGNATURE } }),
        // viem asks the stub only when both are given; `isFinal` stops it there (the real data is signed in `sign`)
        paymaster: { getPaymasterStubData: stub, getPaymasterData: stub },
      }) as unknown as UserOperation<'0.8'>
      const gas = op.callGasLimit + op.verificationGasLimit + op.preVerificationGas + (op.paymasterVerificationGasLimit ?? 0n) + (op.paymasterPostOpGasLimit ?? 0n)
      const draft: Draft = { op, owner, endpoint: e, authorizationNonce }
      return { sender: owner.address, nonce: op.nonce, maxCost: gas * op.maxFeePerGas, delegates: !delegated, draft }
    } catch (err) {
      throw asBundlerError(err)
    }
  }

  /** CPU only: the paymaster's data from `signer`, the authorization on first use, the owner's signature and the operation's hash. */
  async sign(estimated: EstimatedUserOp, signer: LocalAccount, window: PaymasterWindow): Promise<SignedUserOp> {
    const { op: draftOp, owner, endpoint: e, authorizationNonce } = estimated.draft as Draft
    const op: UserOperation<'0.8'> = { ...draftOp }
    op.paymasterData = await signPaymasterData(signer, op as SponsoredUserOperation, e.chainId, e.paymaster, window)
    if (authorizationNonce !== null) {
      if (!owner.signAuthorization) throw new Error('the owner cannot sign an EIP-7702 authorization')
      op.authorization = await owner.signAuthorization({ address: SIMPLE_7702_ACCOUNT, chainId: e.chainId, nonce: authorizationNonce })
    }
    const hash = getUserOperationHash({ chainId: e.chainId, entryPointAddress: entryPoint08Address, entryPointVersion: '0.8', userOperation: { ...op, signature: '0x' } })
    const account = await toSimple7702SmartAccount({ client: this.pub(e), owner: owner as never })
    op.signature = await account.signUserOperation({ ...op, chainId: e.chainId })
    return { hash, json: formatUserOperationRequest(op) as unknown as UserOpJson }
  }

  /** `eth_sendUserOperation` of a signed operation (again, unchanged, when it was dropped) */
  async send(e: BundlerEndpoint, json: UserOpJson): Promise<SendUserOpOutcome> {
    try {
      await this.rpc(e, 'eth_sendUserOperation', [json, entryPoint08Address])
      return { kind: 'accepted' }
    } catch (err) {
      const b = asBundlerError(err)
      if (b.kind === 'unreachable') return { kind: 'unreachable', reason: b.message }
      // the bundler already holds this very operation (a resubmission): it is in its mempool
      if (/already known|already in mempool/i.test(b.message)) return { kind: 'accepted' }
      return { kind: 'rejected', reason: b.message }
    }
  }

  /** the operation's receipt once it was included in a block (read from the chain's logs by the bundler), else null */
  async receipt(e: BundlerEndpoint, hash: Hex): Promise<UserOpReceipt | null> {
    const r = await this.rpc<{ success: boolean; actualGasCost: Hex; reason?: Hex; receipt: { transactionHash: Hex; blockNumber: Hex } } | null>(e, 'eth_getUserOperationReceipt', [hash])
    if (!r) return null
    return { success: r.success, txHash: r.receipt.transactionHash, blockNumber: BigInt(r.receipt.blockNumber), actualGasCost: BigInt(r.actualGasCost), reason: r.reason }
  }

  /** whether the bundler still holds the operation (in its mempool or included); false: dropped or never seen */
  async known(e: BundlerEndpoint, hash: Hex): Promise<boolean> {
    return (await this.rpc<unknown>(e, 'eth_getUserOperationByHash', [hash])) != null
  }

  /** the EntryPoint's next nonce of `sender` for `key`: past `nonce` means an operation with that nonce ran */
  async nonceUsed(e: BundlerEndpoint, sender: Hex, nonce: bigint): Promise<boolean> {
    const key = nonce >> 64n
    const next = await this.pub(e).readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'getNonce', args: [sender as Address, key] })
    return next > nonce
  }
}

function asBundlerError(err: unknown): BundlerError {
  if (err instanceof BundlerError) return err
  const e = err as { shortMessage?: string; details?: string; message?: string; name?: string }
  const text = (e.details ?? e.shortMessage ?? e.message ?? String(err)).split('\n')[0]!.slice(0, 300)
  const unreachable = /HttpRequestError|TimeoutError|fetch failed|ECONNREFUSED|Unable to connect/i.test(`${e.name} ${e.message}`)
  return new BundlerError(text, unreachable ? 'unreachable' : 'rejected')
}

/**
 * `slipway paymaster deposit`: EntryPoint v0.8 `depositTo(paymaster)` with `wei` from a funded
 * key, waiting for the receipt; answers the transaction hash and the deposit after it.
 */
export async function depositToPaymaster(o: { rpcUrl: string; chainId: number; key: Hex; paymaster: Hex; wei: bigint; timeoutMs: number }) {
  const chain = { id: o.chainId, name: 'network', nativeCurrency: { name: 'native', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [o.rpcUrl] } } }
  const pub = createPublicClient({ chain, transport: http(o.rpcUrl, { timeout: o.timeoutMs }), pollingInterval: 250 })
  const wallet = createWalletClient({ chain, transport: http(o.rpcUrl, { timeout: o.timeoutMs }), account: privateKeyToAccount(o.key) })
  const hash = await wallet.writeContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'depositTo', args: [o.paymaster], value: o.wei })
  const r = await pub.waitForTransactionReceipt({ hash })
  if (r.status !== 'success') throw new Error(`the deposit transaction ${hash} reverted`)
  const deposit = await pub.readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'balanceOf', args: [o.paymaster] })
  return { hash, deposit }
}
