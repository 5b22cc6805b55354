/**
 * A module (or anything costly) loaded on its first use and shared after. The chain
 * libraries (viem, @solana/web3.js), nodemailer and the queue dashboard are loaded this
 * way, so a process that never serves a wallet route never holds them in memory. A load
 * that fails is retried on the next call rather than cached.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= load().catch((err) => {
      pending = undefined
      throw err
    })
    return pending
  }
}
