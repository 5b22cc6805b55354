/**
 * A wallet's first sponsored operations, one at a time (in this process). The first carries the
 * EOA's EIP-7702 authorization to Simple7702Account, and a bundler takes one delegating
 * operation per sender: a second one, made before the first is mined, would carry the same
 * authorization and be refused. So a custodial send that would delegate waits here while
 * another of the wallet's delegating operations is in flight, until that one is on chain (the
 * wallet's code is the delegation) or failed, then is estimated again: delegated by then, it
 * goes without an authorization, alongside the others.
 *
 * Across processes the write that records an operation is the guard: a delegating operation
 * while another of the sender's is open is refused with 409 GAS_DELEGATION_PENDING
 * (the gas sponsorship module's `reserveSponsorship`), never sent twice.
 */
import type { BundlerEndpoint, BundlerGateway, EstimatedUserOp, Hex } from '../../../adapters/bundler'

/** how long a send waits for the wallet's delegating operation before it goes on (and is refused clearly if still open) */
const WAIT_MS = 60_000
/** the chain is read this often while a delegating operation is waited for */
const POLL_MS = 500

const inFlight = new Map<string, Promise<void>>()
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function waitTurn(key: string, until: number) {
  for (let cur = inFlight.get(key); cur && Date.now() < until; cur = inFlight.get(key)) {
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([cur, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, until - Date.now()))))])
    clearTimeout(timer)
  }
}

export interface Delegation {
  /** the operation went to the bundler: the turn ends once the delegation is on chain (or after a bound) */
  sent(): void
  /** the operation never left: the next one may delegate at once */
  release(): void
}

/**
 * Estimates the operation once no delegating operation of the wallet is in flight here; when
 * this one delegates, it takes the turn (`turn` non-null), which the caller ends with `sent` or `release`.
 */
export async function estimateInTurn(
  gateway: BundlerGateway, e: BundlerEndpoint, sender: Hex, estimate: () => Promise<EstimatedUserOp>,
): Promise<{ estimated: EstimatedUserOp; turn: Delegation | null }> {
  const key = `${e.network}|${sender.toLowerCase()}`
  const until = Date.now() + WAIT_MS
  for (;;) {
    await waitTurn(key, until)
    const estimated = await estimate()
    if (!estimated.delegates) return { estimated, turn: null }
    // taken with no await between the look and the claim: one delegating operation per wallet here
    if (!inFlight.has(key) || Date.now() >= until) return { estimated, turn: claim(key, gateway, e, sender) }
  }
}

function claim(key: string, gateway: BundlerGateway, e: BundlerEndpoint, sender: Hex): Delegation {
  let done!: () => void
  const mine = new Promise<void>((resolve) => (done = resolve))
  inFlight.set(key, mine)
  const end = () => {
    if (inFlight.get(key) === mine) inFlight.delete(key)
    done()
  }
  return {
    release: end,
    sent() {
      void (async () => {
        const until = Date.now() + WAIT_MS
        while (Date.now() < until) {
          const d = await gateway.delegation(e, sender).catch(() => null)
          if (d) break
          await sleep(POLL_MS)
        }
      })().finally(end)
    },
  }
}
