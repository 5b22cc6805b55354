/**
 * The bundler adapter: user operations from an EOA delegated (EIP-7702) to Simple7702Account,
 * through EntryPoint v0.8 and an ERC-4337 bundler, with viem's MIT account-abstraction module.
 *
 * A sponsored operation is made in three steps, so the caller can hold the sponsorship and
 * record the operation in one write between them: `estimate` (the bundler estimates the gas
 * with a stub paymaster signature), `sign` (CPU only: the paymaster's data from the caller's
 * signer, the EIP-7702 authorization on first use, the owner's signature, the hash), `send`.
 */
import { createPublicClient, http, type Address, type LocalAccount, type PublicClient } from 'viem'
import { privateKeyToAccount, toAccount } from 'viem/accounts'
import { hashAuthorization } from 'viem/utils'
import {
  createBundlerClient, entryPoint08Abi, entryPoint08Address, formatUserOperationRequest, getUserOperationHash, toSimple7702SmartAccount,
  type BundlerClient, type UserOperation,
} from 'viem/account-abstraction'
import { withSignatures, type RawSignature } from './signatures'
import { encodePaymasterData, signPaymasterData, STUB_PAYMASTER_SIGNATURE, type PaymasterWindow, type SponsoredUserOperation } from './paymaster-data'
import {
  BundlerError, type BundlerEndpoint, type EstimatedUserOp, type Hex, type SendUserOpOutcome, type SignedUserOp, type UnsignedUserOp, type UserOpCall, type UserOpJson, type UserOpReceipt,
} from './port'

export * from './port'
export { depositToPaymaster } from './deposit'
export { missingSignatures, withSignatures, type RawSignature } from './signatures'
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
   * `calls` from the EOA of `ownerKey` (or of an address whose key is not here: an MPC wallet's),
   * gas estimated by the bundler with a stub paymaster signature; `nonceKey` (192 bits) gives concurrent operations of one sender nonces of their own.
   */
  async estimate(e: BundlerEndpoint, ownerKey: Hex | { address: Hex }, calls: UserOpCall[], nonceKey: bigint): Promise<EstimatedUserOp> {
    const pub = this.pub(e)
    const owner: LocalAccount = typeof ownerKey === 'string' ? privateKeyToAccount(ownerKey) : keylessOwner(ownerKey.address)
    // viem types the owner as a key's account; only its address is read here (signing is `sign`'s, with the owner's own methods)
    const account = await toSimple7702SmartAccount({ client: pub, owner: owner as never })
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

  /**
   * CPU only: the paymaster's data from `signer`, then the hashes the owner signs: the user
   * operation's (EIP-712, what Simple7702Account recovers) and, on first use, the EIP-7702
   * authorization's. `json` is the operation as the bundler takes it, with its owner's
   * signatures still empty (`withSignatures` fills them in).
   */
  async sponsor(estimated: EstimatedUserOp, signer: LocalAccount, window: PaymasterWindow): Promise<UnsignedUserOp> {
    const { op: draftOp, endpoint: e, authorizationNonce } = estimated.draft as Draft
    const op: UserOperation<'0.8'> = { ...draftOp, signature: '0x' }
    op.paymasterData = await signPaymasterData(signer, op as SponsoredUserOperation, e.chainId, e.paymaster, window)
    let authorization: UnsignedUserOp['authorization'] = null
    if (authorizationNonce !== null) {
      const unsigned = { address: SIMPLE_7702_ACCOUNT, chainId: e.chainId, nonce: authorizationNonce }
      authorization = { ...unsigned, hash: hashAuthorization(unsigned) }
      op.authorization = { ...unsigned, r: ZERO32, s: ZERO32, yParity: 0 }
    }
    const hash = getUserOperationHash({ chainId: e.chainId, entryPointAddress: entryPoint08Address, entryPointVersion: '0.8', userOperation: op })
    return { hash, authorization, json: formatUserOperationRequest(op) as unknown as UserOpJson }
  }

  /** CPU only: `sponsor`, then the owner's signatures made with its key (a custodial wallet's). */
  async sign(estimated: EstimatedUserOp, signer: LocalAccount, window: PaymasterWindow): Promise<SignedUserOp> {
    const { owner } = estimated.draft as Draft
    const unsigned = await this.sponsor(estimated, signer, window)
    if (!owner.sign || (unsigned.authorization && !owner.signAuthorization)) throw new Error('the owner cannot sign here')
    let authorization: RawSignature | null = null
    if (unsigned.authorization) {
      const { address, chainId, nonce } = unsigned.authorization
      const a = await owner.signAuthorization!({ address, chainId, nonce })
      authorization = { r: a.r, s: a.s, yParity: a.yParity ?? Number(a.v! - 27n) }
    }
    const signature = await owner.sign({ hash: unsigned.hash })
    return { hash: unsigned.hash, json: withSignatures(unsigned.json, { userOp: signature, authorization }) }
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

const ZERO32: Hex = `0x${'0'.repeat(64)}`

/** An owner known by its address alone (an MPC wallet's): it estimates, it never signs here. */
function keylessOwner(address: Hex): LocalAccount {
  const keyless = async (): Promise<never> => {
    throw new Error('this owner signs elsewhere (an MPC wallet signs through the relay)')
  }
  return toAccount({ address, signMessage: keyless, signTransaction: keyless, signTypedData: keyless })
}

function asBundlerError(err: unknown): BundlerError {
  if (err instanceof BundlerError) return err
  const e = err as { shortMessage?: string; details?: string; message?: string; name?: string }
  const text = (e.details ?? e.shortMessage ?? e.message ?? String(err)).split('\n')[0]!.slice(0, 300)
  const unreachable = /HttpRequestError|TimeoutError|fetch failed|ECONNREFUSED|Unable to connect/i.test(`${e.name} ${e.message}`)
  return new BundlerError(text, unreachable ? 'unreachable' : 'rejected')
}
