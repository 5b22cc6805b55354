/**
 * The breached-password rule. It lives with registration, which applies it when the
 * tenant turned on `breachedPasswordCheck.onRegister` (wired in src/services.ts);
 * password reset applies it always. When the breach service cannot answer within
 * HIBP_TIMEOUT_MS, HIBP_ON_ERROR decides: `reject` (default) fails closed with 503 so a
 * known-breached password is never accepted unchecked; `allow` accepts the password and
 * logs a warning.
 */
import type { Deps } from '../../deps'
import { BreachServiceError } from '../../adapters/hibp/port'
import { ServiceUnavailableError } from '../../lib/errors'
import { errorSummary } from '../../lib/logger'
import type { SignedTenant } from '../../context'

export const BREACHED_MESSAGE = 'This password has appeared in a known data breach; choose a different one'
export const BREACH_CHECK_UNAVAILABLE = 'The password could not be checked right now; please try again in a few minutes'

/** The reason to refuse the password, or null when it may be used. */
export async function breachProblem(deps: Deps, password: string): Promise<string | null> {
  try {
    return (await deps.breachedPasswords.occurrences(password)) > 0 ? BREACHED_MESSAGE : null
  } catch (err) {
    if (!(err instanceof BreachServiceError)) throw err
    deps.logger.warn('breached-password check unavailable', { policy: deps.config.hibpOnError, ...errorSummary(err) })
    if (deps.config.hibpOnError === 'allow') return null
    throw new ServiceUnavailableError(BREACH_CHECK_UNAVAILABLE)
  }
}

/**
 * Registration's password rule (wired in src/services.ts): checks only when the tenant turned it on.
 * The one setting is read as `readSettings` completes it (stored, else the default), without
 * building every default and merging them: that was about 3% of a registration's JavaScript thread.
 */
export async function registrationBreachCheck(deps: Deps, tenant: SignedTenant, password: string): Promise<string | null> {
  const stored = (tenant.settings as { breachedPasswordCheck?: { onRegister?: boolean } } | null)?.breachedPasswordCheck?.onRegister
  // the default is off (tenants' `defaultSettings`)
  return (stored ?? false) ? breachProblem(deps, password) : null
}
