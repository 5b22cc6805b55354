/**
 * Hello, Slipway: a user registered with a tenant-signed request (or signed in again with
 * --user), and their profile read with their access token.
 *
 *   eval "$(npm run -s slipway -- tenant create --name Acme)"
 *   npx bun examples/hello.ts [--user <name>]
 */
import { orThrow } from '@slipway/client'
import { client, main, signedIn } from './_setup'

main('hello', async () => {
  const slipway = client()
  await signedIn(slipway, 'alice', 'examples/hello.ts')
  const me = orThrow(await slipway.getUser(slipway.session!.userId))
  console.log(`hello ${me.username}: user ${me.id} of this tenant, email ${me.email}`)
})
