/**
 * Partner API: customers, their hosted onboarding links and the addresses they prove they own.
 */
import { randomUUID } from 'node:crypto'
import type { SimulatorContext } from './context'
import { partnerApi } from './partner-api'
import { json, partnerError, readJson } from './protocol'

export function customerRoutes(ctx: SimulatorContext) {
  const { state: { customers, sessions, provenAddresses }, opts, now, iso, key, customerView, knownCustomer } = ctx
  return partnerApi(ctx)
    .get('/customers/:id', ({ params, account }) => {
      const c = customers.get(key(account!.id, params.id))
      if (!c || !c.started) return partnerError(404, 'ResourceNotFound', 'Customer not found')
      return json(customerView(c))
    })
    .post('/onboarding/:id', async ({ params, request, account }) => {
      const body = await readJson(request)
      const returnUrl = body?.ReturnURL
      const fiat = body?.FiatOptions
      if (typeof returnUrl !== 'string' || !/^https?:\/\//.test(returnUrl) || !Array.isArray(fiat) || !fiat.length) {
        return partnerError(400, 'InvalidMessage', 'ReturnURL and FiatOptions are required', { ReturnURL: 'required', FiatOptions: 'required' })
      }
      if (!/^[A-Za-z0-9-]{1,64}$/.test(params.id)) return partnerError(400, 'InvalidMessage', 'CustomerID is not valid')
      const k = key(account!.id, params.id)
      let c = customers.get(k)
      const created = !c
      if (!c) {
        c = {
          id: params.id,
          accountId: account!.id,
          type: body?.CustomerType === 'Business' ? 'Business' : 'Individual',
          started: false,
          status: 'Pending',
          actionsRequired: [],
          agreements: [],
          regions: [],
          created: iso(),
          version: 0,
        }
        customers.set(k, c)
      }
      const token = randomUUID()
      sessions.set(token, { token, accountId: account!.id, customerId: params.id, returnUrl, expiresAt: now() + 24 * 3600_000 })
      return json({ HostedURL: `${opts.publicUrl()}/onboarding/${token}` }, created ? 201 : 200)
    })
    .post('/customers/:id/addresses', async ({ params, request, account }) => {
      const customer = knownCustomer(account!.id, params.id)
      if (!customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
      const b = await readJson(request)
      const missing = ['Network', 'Address', 'Message', 'Signature', 'SignatureScheme'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
      if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
      if (!['EIP191', 'Ed25519'].includes(b.SignatureScheme)) return partnerError(400, 'InvalidMessage', 'SignatureScheme is EIP191 or Ed25519', { SignatureScheme: 'invalid' })
      if (!String(b.Message).includes(b.Address)) return partnerError(400, 'InvalidMessage', 'The message does not name the address', { Message: 'invalid' })
      const k = key(account!.id, `${customer.id}:${b.Network}:${b.Address}`)
      let a = provenAddresses.get(k)
      if (!a) {
        a = { AddressID: randomUUID(), Network: b.Network, Address: b.Address, Created: iso(), accountId: account!.id, customerId: customer.id }
        provenAddresses.set(k, a)
      }
      const { accountId: _a, customerId: _c, ...out } = a
      return json(out, 201)
    })
    .delete('/customers/:id/addresses/:addressId', ({ params, account }) => {
      for (const [k, a] of provenAddresses.entriesOf(account!.id)) {
        if (a.customerId === params.id && a.AddressID === params.addressId) {
          provenAddresses.delete(k)
          return new Response(null, { status: 204 })
        }
      }
      return partnerError(404, 'ResourceNotFound', 'Address not found')
    })
}
