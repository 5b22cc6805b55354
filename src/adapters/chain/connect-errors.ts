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

const NOT_CONNECTED_CODE = /^(econnrefused|connectionrefused|enotfound|eai_again|ehostunreach|enetunreach|failedtoopensocket)$/i

/**
 * The same question read from the `code`s of the cause chain only, never a message: a message
 * may carry an answer's body (a gateway's 502 naming its upstream's ECONNREFUSED), and an
 * answer means the connection was made.
 */
export function neverConnectedByCode(err: unknown): boolean {
  for (let e = err as { cause?: unknown; code?: unknown } | undefined, i = 0; e && typeof e === 'object' && i < 10; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string' && NOT_CONNECTED_CODE.test(e.code)) return true
  }
  return false
}
