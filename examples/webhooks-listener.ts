/**
 * A webhook receiver: verifies each delivery's signature (Standard Webhooks, the secret
 * `whsec_...`) and prints one line per event. On your machine, `slipway webhooks listen
 * --forward-to` posts the tenant's sandbox deliveries on to it and prints the secret:
 *
 *   npx bun examples/webhooks-listener.ts 4000 &      # SLIPWAY_WEBHOOK_SECRET=whsec_... (printed by the next line)
 *   npm run -s slipway -- webhooks listen --tenant "$SLIPWAY_TENANT_ID" --forward-to http://127.0.0.1:4000/
 *
 * Stops after --count <n> events when given (a script's check), else runs until Ctrl-C.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { main, need } from './_setup'

/** `webhook-id.webhook-timestamp.body`, HMAC-SHA256 under the secret's bytes, compared in constant time; 5 minutes of skew. */
function verified(secret: string, headers: Headers, raw: string): boolean {
  const id = headers.get('webhook-id') ?? '', ts = headers.get('webhook-timestamp') ?? ''
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false
  const expected = Buffer.from(createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${ts}.${raw}`).digest('base64'))
  // the header may carry several signatures (`v1,<base64> v1,<base64>` during a secret's rotation)
  return (headers.get('webhook-signature') ?? '').split(' ').some((s) => {
    const sig = Buffer.from(s.slice(s.indexOf(',') + 1))
    return s.startsWith('v1,') && sig.length === expected.length && timingSafeEqual(sig, expected)
  })
}

main('webhooks-listener', async () => {
  const secret = need('SLIPWAY_WEBHOOK_SECRET', 'npm run -s slipway -- webhooks listen --tenant "$SLIPWAY_TENANT_ID" --forward-to <this listener> prints it;')
  const port = Number(process.argv[2] ?? 4000)
  const at = process.argv.indexOf('--count')
  let left = at > 0 ? Number(process.argv[at + 1]) : Infinity
  const seen = new Set<string>()
  let done!: () => void
  const finished = new Promise<void>((r) => { done = r })
  const server = Bun.serve({
    hostname: '127.0.0.1', port,
    async fetch(req) {
      const raw = await req.text()
      if (!verified(secret, req.headers, raw)) return new Response('bad signature', { status: 401 })
      const event = JSON.parse(raw) as { id: string; type: string; data: unknown }
      // the same delivery may come twice (retries): handle each id once
      if (!seen.has(event.id)) {
        seen.add(event.id)
        console.log(`verified ${event.type} ${event.id} ${JSON.stringify(event.data).slice(0, 160)}`)
        if (--left <= 0) setTimeout(done, 50)
      }
      return new Response(null, { status: 204 })
    },
  })
  console.log(`listening on http://127.0.0.1:${server.port}/`)
  await finished
  server.stop()
})
