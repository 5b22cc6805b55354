/**
 * What every example shares: where Slipway is and the tenant's credentials (from the environment
 * `slipway tenant create` prints), a user made or resumed, one line on any failure, and waiting.
 * Copy it with the example you start from. `@slipway/client` is the client package
 * (docs/platform.md, "The client in another project"); inside this repository it is src/client.
 *
 *   SLIPWAY_URL (default http://localhost:3000), SLIPWAY_API_KEY, SLIPWAY_API_SECRET
 *   SLIPWAY_WAIT_MS: how long a call waits for a Slipway that refuses connections (default 30000)
 *   --user <name> (or SLIPWAY_USER): sign in as that user instead of registering a new one
 */
import { orThrow, SlipwayClient } from '@slipway/client'

export const baseUrl = (process.env.SLIPWAY_URL ?? 'http://localhost:3000').replace(/\/+$/, '')
/** the password of the users the examples make (SLIPWAY_PASSWORD to choose another) */
export const password = process.env.SLIPWAY_PASSWORD ?? 'Str0ng-Passw0rd'

/** A named environment variable, or one line saying where it comes from and exit 2. */
export function need(name: string, from = 'eval "$(npm run -s slipway -- tenant create --name Acme --sandbox --admin acme-admin)"'): string {
  const value = process.env[name]
  if (value) return value
  console.error(`${name} is not set: ${from} first`)
  process.exit(2)
}

/** A client signing with the tenant's key; a call made while Slipway restarts waits for it (SLIPWAY_WAIT_MS) and says so once. */
export function client(): SlipwayClient {
  const tenant = { apiKey: need('SLIPWAY_API_KEY'), apiSecret: need('SLIPWAY_API_SECRET') }
  const waitForServerMs = Number(process.env.SLIPWAY_WAIT_MS ?? 30_000)
  return new SlipwayClient({ baseUrl, tenant, waitForServerMs, onWait: ({ url }) => console.error(`waiting for Slipway at ${url} (starting or restarting?)`) })
}

/** Signs in as `--user <name>` (or SLIPWAY_USER), or registers `<prefix>-<random>` and prints how to resume as it. */
export async function signedIn(slipway: SlipwayClient, prefix: string, script: string): Promise<string> {
  const at = process.argv.indexOf('--user')
  const resume = at > 0 ? process.argv[at + 1] : process.env.SLIPWAY_USER
  if (resume) {
    orThrow(await slipway.login({ username: resume, password }))
    console.log(`user ${resume} signed in`)
    return resume
  }
  const username = `${prefix}-${crypto.randomUUID().slice(0, 8)}`
  orThrow(await slipway.register({ username, email: `${username}@example.com`, password }))
  console.log(`user ${username} registered (password ${password}); run again as this user: npx bun ${script} --user ${username}`)
  return username
}

/** Runs the example; any failure is one line on stderr and exit 1 (no stack trace). */
export function main(name: string, run: () => Promise<void>): void {
  run().then(() => process.exit(0), (err: unknown) => {
    console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`)
    process.exit(1)
  })
}

/** Reads until `ok` holds, every 300 ms, for at most `timeoutMs`; throws naming `what`. */
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > end) throw new Error(`${what}: not reached in ${timeoutMs / 1000} s (last: ${JSON.stringify(v)?.slice(0, 200)})`)
    await new Promise((r) => setTimeout(r, 300))
  }
}

/** Waits until a transaction is mined: throws unless it is confirmed. */
export async function confirmed(slipway: SlipwayClient, id: string): Promise<void> {
  const s = await until(`transaction ${id}`, async () => orThrow(await slipway.api.GET('/v1/transactions/{id}/status', { params: { path: { id } } })), (t) => t.status !== 'pending')
  if (s.status !== 'confirmed') throw new Error(`transaction ${id} ended ${s.status}`)
}
