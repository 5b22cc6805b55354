/**
 * Whether a request's error is of a connection that was never made (refused, no such host, no
 * route): then the request never left and nothing was submitted. Any other transport error (a
 * reset or a close after the request was written, a time limit) may have reached the node.
 * Shared by the EVM and Solana adapters; imports nothing.
 */
const NOT_CONNECTED = /econnrefused|connectionrefused|unable to connect|enotfound|eai_again|ehostunreach|enetunreach|failedtoopensocket/i

/** Walks the error's `cause` chain (up to 10 links), reading each link's `code` and `message`. */
export function neverConnected(err: unknown): boolean {
  const parts: string[] = []
  for (let e = err as { cause?: unknown; code?: unknown; message?: unknown } | undefined, i = 0; e && i < 10; e = e.cause as typeof e, i++) {
    parts.push(`${typeof e.code === 'string' ? e.code : ''} ${typeof e.message === 'string' ? e.message : ''}`)
  }
  return NOT_CONNECTED.test(parts.join(' '))
}
