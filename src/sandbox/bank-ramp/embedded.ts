/**
 * The simulator as Slipway's embedded default (BANK_RAMP_SIMULATOR=embedded): served by the
 * same process under `/sandbox/bank-ramp`, used by every tenant whose sandbox has no partner
 * address. Slipway's adapter reaches it in process (no network hop, works whatever
 * PUBLIC_BASE_URL says), and its webhooks come back into the app in process too. Each tenant
 * is its own simulator account, opened by a key derived from the server secret (embedded-keys.ts).
 * Given Slipway's database, its state is kept there (repo.ts) and outlives a restart.
 */
import { createBankRampSimulator, type SimulatorAccount } from './app'
import type { Database } from '../../db/client'
import type { StablecoinSender as SimulatorChain } from '../../adapters/chain/funded-sender'
import type { TransferVerifier } from '../../adapters/chain/transfer-check'
import { embeddedCredentials, embeddedStateKey, tenantOfEmbeddedKey } from './embedded-keys'
import { libsqlPersistence } from './repo'

export const EMBEDDED_SIMULATOR_PATH = '/sandbox/bank-ramp'

export interface EmbeddedSimulatorOptions {
  secret: Uint8Array
  publicBaseUrl: string
  chain?: SimulatorChain
  verifier?: TransferVerifier
  /** Slipway's database: the simulator's state is kept in its own tables there; in memory only when absent */
  database?: Database
}

export function createEmbeddedSimulator(opts: EmbeddedSimulatorOptions) {
  let appHandle: ((r: Request) => Promise<Response>) | undefined
  const publicRoot = `${opts.publicBaseUrl}${EMBEDDED_SIMULATOR_PATH}`
  /** each tenant is the account of its own id, its webhooks signed with its own derived key */
  const accountOf = (tenantId: string): SimulatorAccount | null => /^[0-9a-f-]{36}$/.test(tenantId)
    ? { id: tenantId, webhook: { url: `${opts.publicBaseUrl}/v1/ramp/bank/webhooks/sandbox/${tenantId}`, secret: embeddedCredentials(opts.secret, tenantId).webhookKey } }
    : null
  const now = () => Date.now()
  const sim = createBankRampSimulator({
    basePath: EMBEDDED_SIMULATOR_PATH,
    publicUrl: () => publicRoot,
    chain: opts.chain,
    verifier: opts.verifier,
    now,
    accounts: (apiKey) => {
      const tenantId = tenantOfEmbeddedKey(opts.secret, apiKey)
      return tenantId ? accountOf(tenantId) : null
    },
    accountById: accountOf,
    persistence: opts.database ? libsqlPersistence(opts.database, now) : undefined,
    secret: embeddedStateKey(opts.secret),
    deliver: (r) => (appHandle ? appHandle(r) : fetch(r)),
  })
  return {
    /** the partner API base the adapter is pointed at */
    apiBaseUrl: `${publicRoot}/v1`,
    /** serves requests whose path starts with EMBEDDED_SIMULATOR_PATH */
    fetch: (r: Request) => sim.fetch(r),
    credentials: (tenantId: string) => embeddedCredentials(opts.secret, tenantId),
    /**
     * Whether a hosted onboarding link it handed out still opens: Slipway hands a stored link
     * back only then (a link from before the simulator kept its state, or evicted by the
     * per-account bound, would answer "expired").
     */
    knowsOnboardingLink(url: string): Promise<boolean> {
      const prefix = `${publicRoot}/onboarding/`
      return url.startsWith(prefix) ? sim.knowsOnboardingToken(url.slice(prefix.length)) : Promise.resolve(false)
    },
    /** the app that receives the simulator's webhooks in process */
    attach(handle: (r: Request) => Promise<Response>) {
      appHandle = handle
    },
    /** resumes the deposits a stopped server left unfinished (app.ts `resume`) */
    resume: () => sim.resume(),
    settle: () => sim.settle(),
  }
}

export type EmbeddedSimulator = ReturnType<typeof createEmbeddedSimulator>
