/**
 * The one rule for every sandbox partner Slipway can serve itself (the bank ramp simulator, the
 * swap aggregator, the card onramp provider, the price provider and the faucet): whether it runs
 * is decided here and nowhere else.
 *
 * Outside production a sandbox runs unless its own setting says `off`. Under
 * NODE_ENV=production every sandbox is off unless the operator opts in with
 * SANDBOX_IN_PRODUCTION=true: a sandbox answers partner calls with simulated money
 * movements, keeps state in memory and serves hosted pages, none of which a production
 * deployment should expose by accident. A sandbox's own setting asking for it under
 * production without the opt-in stops start-up rather than being quietly ignored, so the
 * operator learns which of the two they meant.
 */
export type SandboxMode = 'embedded' | 'off'

export const SANDBOX_OPT_IN_VARIABLE = 'SANDBOX_IN_PRODUCTION'

export interface SandboxEnvironment {
  nodeEnv: string
  /** SANDBOX_IN_PRODUCTION=true */
  sandboxInProduction: boolean
}

/**
 * The mode one sandbox runs in, from its own setting (`undefined`: not set) and the
 * environment; `problem` names what is wrong when the setting is refused.
 */
export function sandboxMode(variable: string, setting: SandboxMode | undefined, env: SandboxEnvironment): { mode: SandboxMode; problem?: string } {
  if (env.nodeEnv !== 'production' || env.sandboxInProduction) return { mode: setting ?? 'embedded' }
  if (setting === 'embedded') {
    return {
      mode: 'off',
      problem: `${variable}=embedded is refused under NODE_ENV=production unless ${SANDBOX_OPT_IN_VARIABLE}=true: a sandbox simulates money movements (docs/operations.md, "Sandboxes in production")`,
    }
  }
  return { mode: 'off' }
}
