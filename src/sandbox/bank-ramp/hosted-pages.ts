/**
 * The hosted identity check a customer's browser opens (`HostedURL` of `POST /v1/onboarding/{id}`):
 * opening it makes the customer known to the partner (`Pending`); its buttons approve, decline
 * or ask for more information. Each change is posted as a `Customer` webhook.
 */
import { Elysia } from 'elysia'
import type { SimulatorAccount, SimulatorContext } from './context'
import { esc, html } from './protocol'
import type { Customer } from './state'

export function hostedPages(ctx: SimulatorContext) {
  const { state: { sessions, customers }, now, iso, key, track, post, customerView, accountOf } = ctx

  function decide(c: Customer, account: SimulatorAccount, decision: string) {
    const at = iso()
    if (decision === 'approve') {
      c.status = 'Approved'
      c.actionsRequired = []
      c.agreements = [
        { Name: 'NoahTermsOfService', Version: 1, Accepted: true, AcceptedAt: at },
        { Name: 'NoahPrivacyPolicy', Version: 1, Accepted: true, AcceptedAt: at },
      ]
      c.regions = [{ Entity: 'NoahEU', Status: 'Approved', Model: 'Standard', Created: c.created, Modified: at }]
    } else if (decision === 'decline') {
      c.status = 'Declined'
      c.actionsRequired = []
      c.regions = [{ Entity: 'NoahEU', Status: 'Declined', Model: 'Standard', Created: c.created, Modified: at }]
    } else {
      c.status = 'Pending'
      c.actionsRequired = ['ProofOfAddress']
      c.regions = [{ Entity: 'NoahEU', Status: 'Pending', Model: 'Standard', Created: c.created, Modified: at }]
    }
    c.version++
    customers.touch(key(c.accountId, c.id))
    track(post(account, 'Customer', c.id, customerView(c) as unknown as Record<string, unknown>, c.id))
  }

  return new Elysia()
    .get('/onboarding/:token', ({ params }) => {
      const s = sessions.get(params.token)
      if (!s || s.expiresAt < now()) return html('<p>This onboarding link has expired.</p>', 404)
      const c = customers.get(key(s.accountId, s.customerId))
      if (!c) return html('<p>This onboarding link has expired.</p>', 404)
      if (!c.started) {
        c.started = true
        c.version++
        customers.touch(key(s.accountId, s.customerId))
        const account = accountOf(s.accountId)
        if (account) track(post(account, 'Customer', c.id, customerView(c) as unknown as Record<string, unknown>, c.id))
      }
      const button = (d: string, label: string) => `<button name="decision" value="${d}">${label}</button>`
      return html(`<h1>Bank ramp sandbox: identity check</h1><p>Status: ${esc(c.status)}</p>
<form method="post" action="${esc(params.token)}/decision">${button('approve', 'Approve')} ${button('decline', 'Decline')} ${button('more_info', 'Ask for more information')}</form>`)
    })
    .post('/onboarding/:token/decision', async ({ params, request }) => {
      const s = sessions.get(params.token)
      if (!s || s.expiresAt < now()) return html('<p>This onboarding link has expired.</p>', 404)
      const text = await request.text()
      const decision = new URLSearchParams(text).get('decision') ?? (() => { try { return JSON.parse(text).decision } catch { return null } })()
      if (!['approve', 'decline', 'more_info'].includes(decision)) return html('<p>Unknown decision.</p>', 400)
      const c = customers.get(key(s.accountId, s.customerId))
      if (!c) return html('<p>This onboarding link has expired.</p>', 404)
      const account = accountOf(s.accountId)
      if (!c.started || !account) return html('<p>Open the onboarding page first.</p>', 409)
      decide(c, account, decision)
      return html(`<p>Decision recorded: ${esc(c.status)}.</p><p><a href="${esc(s.returnUrl)}">Back to the app</a></p>`)
    })
}
