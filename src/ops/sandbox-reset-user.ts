/**
 * `slipway sandbox reset-user --tenant <tenantId> --user <userId>`: a sandbox user starts the
 * bank ramp again from scratch (docs/bank-ramp.md, "Resetting a sandbox user").
 *
 * In one write transaction it forgets
 * - the embedded simulator's records of the user's partner customer in the tenant's account:
 *   the customer, onboarding links, virtual IBANs, deposits, transactions, saved
 *   beneficiaries, prepared sells, sell nonces, proven addresses and event versions
 *   (src/sandbox/bank-ramp/repo.ts), and logs the reset so a running server's simulator forgets
 *   them in memory before its next request;
 * - Slipway's own bank ramp records of the user in the sandbox environment: the customer (KYC),
 *   virtual IBANs, deposits, pay-in transactions, payout quotes and payouts, address challenges
 *   and proven addresses (src/modules/ramp/repo.ts).
 *
 * It keeps the user, their wallets and what is on chain (balances, the sends of
 * `GET /v1/transactions/`, holds), the events already sent to the tenant's webhooks, the
 * production environment, and the IBAN counter: a forgotten IBAN is never handed out again.
 * The next `onboard-session` makes a new partner customer.
 *
 * Refused while one of the user's sandbox payouts is `pending` or `processing`: its crypto leg
 * and its sell are still running, and forgetting it would leave money moving with no record.
 */
import type { Config } from '../config'
import { applyMigrations } from '../db/migrate'
import { buildDeps, type Deps } from '../deps'
import * as rampRepo from '../modules/ramp'
import { findTenant } from '../modules/tenants'
import { findUser as findUser } from '../modules/users'
import { forgetCustomer } from '../sandbox/bank-ramp/repo'

export const RESET_USAGE = 'usage: slipway sandbox reset-user --tenant <tenantId> --user <userId>'

export class ResetRefused extends Error {}

export interface ResetReport {
  tenantId: string
  userId: string
  /** the partner CustomerID the user had in the sandbox, null when they had none */
  customerId: string | null
  /** the simulator's records deleted (0 when the tenant's sandbox is an external partner, which keeps its own) */
  simulatorRecords: number
  /** Slipway's own rows deleted, per table */
  slipwayRecords: Record<string, number>
  /** `embedded` when the tenant's sandbox is the simulator Slipway serves; `partner` when it has a partner address */
  sandbox: 'embedded' | 'partner'
}

export async function resetSandboxUser(deps: Deps, tenantId: string, userId: string): Promise<ResetReport> {
  const { db } = deps.database
  const tenant = await findTenant(db, tenantId)
  if (!tenant) throw new ResetRefused(`No tenant ${tenantId}`)
  if (!(await findUser(db, tenantId, userId))) throw new ResetRefused(`No user ${userId} in tenant ${tenantId}`)
  const settings = tenant.settings as { bankRamp?: { sandbox?: { baseUrl?: string | null } } } | null
  const sandbox = settings?.bankRamp?.sandbox?.baseUrl ? 'partner' : 'embedded'
  return deps.database.write(async (tx) => {
    const open = await rampRepo.unfinishedPayouts(tx, tenantId, 'sandbox', userId)
    if (open.length) {
      throw new ResetRefused(`User ${userId} has sandbox payouts still running (${open.map((p) => `${p.id}: ${p.status}`).join(', ')}): reset once they are completed or failed`)
    }
    const customer = await rampRepo.findCustomer(tx, tenantId, 'sandbox', userId)
    // the embedded simulator's account of a tenant is the tenant id (src/sandbox/bank-ramp/embedded.ts)
    const simulatorRecords = customer ? await forgetCustomer(tx, tenantId, customer.id, deps.clock.now()) : 0
    const slipwayRecords = await rampRepo.deleteUserRecords(tx, tenantId, 'sandbox', userId)
    return { tenantId, userId, customerId: customer?.id ?? null, simulatorRecords, slipwayRecords, sandbox }
  })
}

function parseOptions(args: string[]): { tenantId: string; userId: string } | string {
  const values: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if ((arg === '--tenant' || arg === '--user') && args[i + 1] !== undefined) values[arg] = args[++i]!
    else if (/^--(tenant|user)=/.test(arg)) values[arg.slice(0, arg.indexOf('='))] = arg.slice(arg.indexOf('=') + 1)
    else return `unknown option ${arg}`
  }
  const tenantId = values['--tenant']?.trim()
  const userId = values['--user']?.trim()
  if (!tenantId || !userId) return '--tenant and --user are required'
  return { tenantId, userId }
}

/** The command: prints the report as JSON; answers the exit code. */
export async function sandboxResetUser(config: Config, args: string[]): Promise<number> {
  const options = parseOptions(args)
  if (typeof options === 'string') {
    console.error(`${options}\n${RESET_USAGE}`)
    return 2
  }
  const deps = await buildDeps(config, { migrate: applyMigrations })
  try {
    const report = await resetSandboxUser(deps, options.tenantId, options.userId)
    console.log(JSON.stringify(report, null, 2))
    if (report.sandbox === 'partner') console.error('The tenant\'s sandbox is an external partner: it still knows the old customer; Slipway will make a new one at the next onboard-session.')
    return 0
  } catch (err) {
    if (!(err instanceof ResetRefused)) throw err
    console.error(err.message)
    return 1
  } finally {
    deps.database.close()
  }
}
