/**
 * The README's quick start, as code: register a user with the typed client (signed with
 * the tenant's API secret), sign in, and read the user's profile with the access token.
 *
 *   eval "$(npm run -s slipway -- tenant create --name Acme)"
 *   npm run -s quickstart -- alice alice@example.com 'Str0ng-Passw0rd'
 *
 * Reads SLIPWAY_API_KEY and SLIPWAY_API_SECRET, and SLIPWAY_URL (default http://localhost:3000).
 */
import { SlipwayClient } from '../src/client'
import { oneLineOnError } from './quickstart-steps'

const [username = 'alice', email = `${username}@example.com`, password = 'Str0ng-Passw0rd'] = process.argv.slice(2)
const apiKey = process.env.SLIPWAY_API_KEY
const apiSecret = process.env.SLIPWAY_API_SECRET
if (!apiKey || !apiSecret) {
  console.error('SLIPWAY_API_KEY and SLIPWAY_API_SECRET are not set: eval "$(npm run -s slipway -- tenant create --name Acme)" first')
  process.exit(2)
}

await oneLineOnError('quickstart', async () => {
  const slipway = new SlipwayClient({ baseUrl: process.env.SLIPWAY_URL ?? 'http://localhost:3000', tenant: { apiKey, apiSecret } })

  const registered = await slipway.register({ username, email, password })
  if (registered.response.status === 409) console.log(`${username} is already registered; signing in`)
  else if (registered.error) fail('register', registered)

  const login = await slipway.login({ username, password })
  if (login.error) fail('login', login)

  const me = await slipway.api.GET('/v1/users/{id}', { params: { path: { id: slipway.session!.userId } } })
  if (me.error) fail(`GET /v1/users/${slipway.session!.userId}`, me)
  console.log(JSON.stringify(me.data, null, 2))
})

function fail(what: string, res: { response: Response; error?: unknown }): never {
  console.error(`${what} answered ${res.response.status}: ${JSON.stringify(res.error)}`)
  process.exit(1)
}
