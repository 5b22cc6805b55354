/**
 * The simulator as Slipway's embedded default (BANK_RAMP_SIMULATOR=embedded): served by the
 * same process under `/sandbox/bank-ramp`, used by every tenant whose sandbox has no partner
 * address. Slipway's adapter reaches it in process (no network hop, works whatever
 * PUBLIC_BASE_URL says), and its webhooks come back into the app in process too. Each tenant
 * is its own simulator account, opened by a key derived from the server secret (embedded-keys.ts).
 */
import { createBankRampSimulator } from './app'
import type { StablecoinSender as SimulatorChain } from '../../adapters/chain/funded-sender'
import type { TransferVerifier } from '../../adapters/chain/transfer-check'
import { embeddedCredentials, tenantOfEmbeddedKey } from './embedded-keys'

export const EMBEDDED_SIMULATOR_PATH = '/sandbox/bank-ramp'

export function createEmbeddedSimulator(opts: { secret: Uint8Array; publicBaseUrl: string; chain?: SimulatorChain; verifier?: TransferVerifier }) {
  let appHandle: ((r: Request) => Promise<Response>) | undefined
  const publicRoot = `${opts.publicBaseUrl}${EMBEDDED_SIMULATOR_PATH}`
  const sim = createBankRampSimulator({
    basePath: EMBEDDED_SIMULATOR_PATH,
    publicUrl: () => publicRoot,
    chain: opts.chain,
    verifier: opts.verifier,
    accounts: (apiKey) => {
      const tenantId = tenantOfEmbeddedKey(opts.secret, apiKey)
      if (!tenantId) return null
      return { id: tenantId, webhook: { url: `${opts.publicBaseUrl}/v1/ramp/bank/webhooks/sandbox/${tenantId}`, secret: embeddedCredentials(opts.secret, tenantId).webhookKey } }
    },
    deliver: (r) => (appHandle ? appHandle(r) : fetch(r)),
  })
  return {
    /** the partner API base the adapter is pointed at */
    apiBaseUrl: `${publicRoot}/v1`,
    /** serves requests whose path starts with EMBEDDED_SIMULATOR_PATH */
    fetch: (r: Request) => sim.fetch(r),
    credentials: (tenantId: string) => embeddedCredentials(opts.secret, tenantId),
    /** the app that receives the simulator's webhooks in process */
    attach(handle: (r: Request) => Promise<Response>) {
      appHandle = handle
    },
    settle: () => sim.settle(),
  }
}

export type EmbeddedSimulator = ReturnType<typeof createEmbeddedSimulator>
