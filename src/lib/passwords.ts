/**
 * Password hashing with argon2id at OWASP's floor (19 MiB, t=2, p=1): about 9 ms a hash
 * on this machine and parallel across cores (native, off the event loop).
 *
 * The native addon loads with the first password hashed or checked: mapped into the
 * process it holds about 3 MiB, which a server that has not yet signed anyone in (or
 * a worker process, which never does) need not hold.
 */
import { lazy } from './lazy'

/** OWASP's floor for argon2id with t=2, p=1, and Slipway's cost: NODE_ENV=production refuses less (src/config.ts). */
export const PASSWORD_HASH_MEMORY_KIB = 19_456

/**
 * The memory cost new hashes are made with (PASSWORD_HASH_MEMORY_KIB, set by `buildDeps` from the
 * config; one per process). Only the tests lower it (tests/setup.ts): a stored hash carries its own
 * parameters, so a check works whatever the cost it was made with.
 */
let memoryCost = PASSWORD_HASH_MEMORY_KIB
export function setPasswordHashMemory(kib: number) {
  if (kib !== memoryCost) dummy = undefined
  memoryCost = kib
}

const argon2 = lazy(async () => {
  const { hash, verify, Algorithm } = await import('@node-rs/argon2')
  return { hash: (password: string) => hash(password, { algorithm: Algorithm.Argon2id, memoryCost, timeCost: 2, parallelism: 1 }), verify }
})

export const hashPassword = async (password: string) => (await argon2()).hash(password)

/**
 * The same hash (argon2id, this process's memory cost, t=2, p=1) made by the runtime's own
 * argon2 (`Bun.password`) instead of the addon, for a one-off hash in a process that may never
 * load the addon: the bootstrap admin's, at a first start. The addon, loaded for one hash, stayed
 * mapped with the allocator it carries (mimalloc), which kept a 2 MiB segment of the hash's
 * 19 MiB: with the addon's pages and its thread's, a fresh database's idle server held 3.5-4 MiB
 * more than one that hashed nothing; the runtime's allocator gives the hash's memory back. About
 * three times the addon's CPU (tens of ms, off the event loop), once. The addon verifies it like
 * its own (the parameters are in the hash). Any other runtime (the Deno entry) uses the addon.
 */
export const hashPasswordOnce = (password: string): Promise<string> => typeof Bun === 'undefined'
  ? hashPassword(password)
  : Bun.password.hash(password, { algorithm: 'argon2id', memoryCost, timeCost: 2 })

export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  // Unknown users and social-only accounts are checked against a dummy hash so a
  // failed sign-in takes the same time whether or not the account exists.
  const target = stored ?? (await dummyHash())
  // loaded outside the try: an addon that fails to load is an error, not a wrong password
  const { verify } = await argon2()
  try {
    const ok = await verify(target, password)
    return stored !== null && ok
  } catch {
    return false
  }
}

let dummy: Promise<string> | undefined
const dummyHash = () => (dummy ??= hashPassword('not-a-real-password-' + crypto.randomUUID()))

/** Registration and reset rules: at least 8 characters with an upper-case letter, a lower-case letter and a digit. */
export function passwordProblems(password: string): string[] {
  const problems: string[] = []
  if (password.length < 8) problems.push('must be at least 8 characters')
  if (!/[A-Z]/.test(password)) problems.push('must contain an uppercase letter')
  if (!/[a-z]/.test(password)) problems.push('must contain a lowercase letter')
  if (!/[0-9]/.test(password)) problems.push('must contain a digit')
  return problems
}
