/** Breached-password lookups (Have I Been Pwned's range API or anything speaking it). */
export interface BreachedPasswords {
  /** How often the password appears in known breaches (0: not found). Throws BreachServiceError when the service cannot answer. */
  occurrences(password: string): Promise<number>
}

export class BreachServiceError extends Error {
  override name = 'BreachServiceError'
}
