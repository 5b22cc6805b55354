/**
 * A funded key that pays an ERC-20 (6 decimals) on an EVM chain: the bank ramp simulator's
 * own wallet (src/sandbox/bank-ramp), which sends the converted stablecoin to the user's
 * address so the balance really changes. It lives beside the chain adapter because viem
 * clients are built only here; viem loads with the first send, like the rest of the chain code.
 */
import type { Address, Hex } from 'viem'
import { knownMainnet } from './mainnets'

/** A signed transfer, kept by its sender before it is broadcast so it can be found again after a crash. */
export interface SignedTransfer { hash: string; raw: string; nonce: number }

/** The node refused the transfer and does not hold it: it was not sent and will never be mined. */
export class TransferRefused extends Error {
  constructor(cause: unknown) {
    super(`the node refused the transfer: ${cause instanceof Error ? cause.message : String(cause)}`)
    this.name = 'TransferRefused'
  }
}

export interface StablecoinSender {
  /** sends `amount` (smallest unit, 6 decimals) and answers the transaction hash once mined */
  sendStablecoin(to: string, amount: bigint): Promise<string>
  /**
   * Sends `amount` so that a crash never sends it twice nor loses it: the transfer is signed,
   * then `record` is awaited with it, and only then is it broadcast (a `record` that throws
   * stops it unsent). Given a transfer recorded earlier (`signed`), it resumes it: the one
   * found mined by its hash is answered; one whose nonce is still unused is broadcast again,
   * the same bytes; one whose nonce another transaction took can never be mined, so a new
   * one is signed and recorded. Answers the mined hash and whether the transfer succeeded;
   * throws TransferRefused when nothing was sent, anything else when that is not known
   * (the recorded transfer is then resumed later).
   */
  deliverStablecoin(to: string, amount: bigint, opts: { signed?: SignedTransfer; record(signed: SignedTransfer): Promise<void> }): Promise<{ hash: string; success: boolean }>
  /** connects and answers the chain id; refuses a mainnet with MainnetChainRefused */
  checkChain?(): Promise<number>
}

/**
 * The simulator pays from a funded key to whoever a sandbox names: on a mainnet that is
 * real money given away, so its chain must be a test network (src/adapters/chain/mainnets.ts).
 */
export class MainnetChainRefused extends Error {
  constructor(readonly chainId: number, readonly chainName: string) {
    super(`BANK_RAMP_SIMULATOR_RPC_URL reaches chain id ${chainId} (${chainName}), a mainnet: the sandbox simulator pays only on test networks`)
    this.name = 'MainnetChainRefused'
  }
}

export function evmStablecoinSender(opts: { rpcUrl: string; tokenAddress: string; privateKey: string; timeoutMs?: number }): StablecoinSender {
  const timeout = opts.timeoutMs ?? 15_000
  const connect = async () => {
    const { createPublicClient, createWalletClient, encodeFunctionData, http, keccak256, parseAbi } = await import('viem')
    const { privateKeyToAccount } = await import('viem/accounts')
    const transport = http(opts.rpcUrl, { timeout })
    const pub = createPublicClient({ transport })
    const chainId = await pub.getChainId()
    const mainnet = await knownMainnet(chainId)
    if (mainnet) throw new MainnetChainRefused(chainId, mainnet)
    const chain = { id: chainId, name: 'sandbox', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } }
    const account = privateKeyToAccount(opts.privateKey as Hex)
    const wallet = createWalletClient({ transport, account, chain })
    return { pub, wallet, account, chainId, encodeFunctionData, keccak256, abi: parseAbi(['function transfer(address to, uint256 amount) returns (bool)']) }
  }
  type Clients = Awaited<ReturnType<typeof connect>>
  let clients: ReturnType<typeof connect> | undefined
  // a failed connection is tried again on the next use; a refused mainnet stays refused
  const connected = () => (clients ??= connect().catch((err) => {
    if (!(err instanceof MainnetChainRefused)) clients = undefined
    throw err
  }))
  // one send at a time keeps the wallet's nonces in order
  let queue: Promise<unknown> = Promise.resolve()
  return {
    async checkChain() {
      return (await connected()).chainId
    },
    async sendStablecoin(to, amount) {
      const { hash, success } = await deliverStablecoin(to, amount, { record: async () => {} })
      if (!success) throw new Error('transfer reverted')
      return hash
    },
    deliverStablecoin,
  }

  function deliverStablecoin(to: string, amount: bigint, o: { signed?: SignedTransfer; record(signed: SignedTransfer): Promise<void> }): Promise<{ hash: string; success: boolean }> {
    const run = queue.then(async () => {
      const c = await connected()
      let signed = o.signed
      // at most a few new signatures: each replaces one whose nonce another transaction took
      for (let round = 0; round < 3; round++) {
        if (!signed) {
          signed = await sign(c, to, amount)
          await o.record(signed)
        }
        const outcome = await settle(c, signed)
        if (outcome) return outcome
        signed = undefined
      }
      throw new Error('the transfer lost its nonce three times')
    })
    queue = run.catch(() => {})
    return run
  }

  async function sign(c: Clients, to: string, amount: bigint): Promise<SignedTransfer> {
    const nonce = await c.pub.getTransactionCount({ address: c.account.address, blockTag: 'pending' })
    const data = c.encodeFunctionData({ abi: c.abi, functionName: 'transfer', args: [to as Address, amount] })
    const request = await c.wallet.prepareTransactionRequest({ to: opts.tokenAddress as Address, data, nonce })
    const raw = await c.wallet.signTransaction(request as never)
    return { hash: c.keccak256(raw), raw, nonce }
  }

  /** The signed transfer's outcome once mined, or null when its nonce went to another transaction. */
  async function settle(c: Clients, s: SignedTransfer) {
    const hash = s.hash as Hex
    const mined = async () => {
      const r = await c.pub.getTransactionReceipt({ hash }).catch(() => null)
      return r ? { hash: s.hash, success: r.status === 'success' } : null
    }
    const found = await mined()
    if (found) return found
    if (await c.pub.getTransactionCount({ address: c.account.address, blockTag: 'latest' }) > s.nonce) return mined()
    try {
      await c.pub.sendRawTransaction({ serializedTransaction: s.raw as Hex })
    } catch (err) {
      // a node that already holds it refuses the copy; one that holds nothing refused it
      const held = await c.pub.getTransaction({ hash }).then(() => true, () => false)
      if (!held) {
        const late = await mined()
        if (late) return late
        throw new TransferRefused(err)
      }
    }
    const r = await c.pub.waitForTransactionReceipt({ hash, timeout, pollingInterval: 100 })
    return { hash: s.hash, success: r.status === 'success' }
  }
}
