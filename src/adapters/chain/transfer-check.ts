/**
 * Reading a stablecoin transfer back from an EVM chain, as a partner does before it pays
 * out for crypto it was sent: the bank ramp simulator checks a sell's
 * `SourceTransactionHash` with it (src/sandbox/bank-ramp/payouts.ts). viem clients are built
 * only in this folder; viem loads with the first check.
 */
import type { Address, Hex } from 'viem'

export type TransferCheck = { ok: true } | { ok: false; reason: string }

export interface TransferVerifier {
  /**
   * Whether `hash` is a mined, successful transaction that moved at least `minimum` of the
   * token to `to`; null while the chain has no receipt for it.
   */
  verify(hash: string, to: string, minimum: bigint): Promise<TransferCheck | null>
}

export function evmTransferVerifier(opts: { rpcUrl: string; tokenAddress: string; timeoutMs?: number }): TransferVerifier {
  const client = (async () => {
    const { createPublicClient, http } = await import('viem')
    return createPublicClient({ transport: http(opts.rpcUrl, { timeout: opts.timeoutMs ?? 10_000, retryCount: 0 }) })
  })()
  return {
    async verify(hash, to, minimum) {
      if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) return { ok: false, reason: 'not a transaction hash' }
      const { decodeEventLog, erc20Abi } = await import('viem')
      const pub = await client
      const receipt = await pub.getTransactionReceipt({ hash: hash as Hex }).catch((err: Error) => {
        if (err.name === 'TransactionReceiptNotFoundError') return null
        throw err
      })
      if (!receipt) return null
      if (receipt.status !== 'success') return { ok: false, reason: 'the transfer reverted' }
      let received = 0n
      for (const log of receipt.logs) {
        if (log.address.toLowerCase() !== opts.tokenAddress.toLowerCase()) continue
        try {
          const e = decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics })
          if (e.eventName === 'Transfer' && (e.args.to as Address).toLowerCase() === to.toLowerCase()) received += e.args.value as bigint
        } catch {
          // another event of the token
        }
      }
      return received >= minimum ? { ok: true } : { ok: false, reason: `the transfer moved ${received} of the token to the deposit address, less than ${minimum}` }
    },
  }
}
