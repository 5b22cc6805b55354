/** The partner REST client against the simulator over HTTP, and against a partner that misbehaves. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { HttpBankRamp } from '@/adapters/bank-ramp/http'
import { RampApiError } from '@/http/errors'
import { isValidIban } from '@/sandbox/bank-ramp/iban'
import { MisbehavingPartner, startSimulator, type RunningSimulator } from '@tests/fakes/bank-ramp-partner'

let sim: RunningSimulator
const bad = new MisbehavingPartner()
const adapter = new HttpBankRamp(500)

beforeAll(() => {
  sim = startSimulator()
  sim.accounts.set('key-a', { id: 'a' })
  bad.start()
})
afterAll(() => {
  sim.stop()
  bad.stop()
})

async function rampError(p: Promise<unknown>): Promise<RampApiError> {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(RampApiError)
    return err as RampApiError
  }
  throw new Error('expected a RampApiError')
}

describe('against the simulator', () => {
  test('hosted onboarding, approval on the hosted page, a virtual IBAN with valid check digits', async () => {
    const c = adapter.connect({ baseUrl: sim.apiUrl, apiKey: 'key-a' })
    const session = await c.createOnboardingSession('cust-1', { ReturnURL: 'https://app.example/back', FiatOptions: [{ FiatCurrencyCode: 'EUR' }] })
    expect(session.HostedURL).toStartWith(`${sim.url}/onboarding/`)
    // the partner does not know the customer until the page is opened
    const before = await rampError(c.getCustomer('cust-1'))
    expect(before.status).toBe(404)
    expect((before.details as any).code).toBe('RAMP_RESOURCE_NOT_FOUND')
    expect((await fetch(session.HostedURL)).status).toBe(200)
    expect((await c.getCustomer('cust-1')).Verification.Status).toBe('Pending')
    const decided = await fetch(`${session.HostedURL}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) })
    expect(decided.status).toBe(200)
    expect((await c.getCustomer('cust-1')).Verification.Status).toBe('Approved')
    const iban = await c.createBankDepositWorkflow({ CustomerID: 'cust-1', FiatCurrency: 'EUR', CryptoCurrency: 'USDC_TEST', Network: 'EthereumTestSepolia', DestinationAddress: { Address: '0x000000000000000000000000000000000000dEaD' } })
    expect(iban.PaymentMethodType).toBe('BankSepa')
    expect(isValidIban(iban.AccountNumber)).toBe(true)
    const methods = await c.listPaymentMethods('cust-1')
    expect(methods.map((m) => m.ID)).toEqual([iban.PaymentMethodID])
  })

  test('another API key is another account: its customers are unknown', async () => {
    sim.accounts.set('key-b', { id: 'b' })
    const err = await rampError(adapter.connect({ baseUrl: sim.apiUrl, apiKey: 'key-b' }).getCustomer('cust-1'))
    expect(err.status).toBe(404)
  })

  test('an unknown key answers 502 RAMP_AUTHENTICATION_FAILED', async () => {
    const err = await rampError(adapter.connect({ baseUrl: sim.apiUrl, apiKey: 'nope' }).getCustomer('cust-1'))
    expect(err.status).toBe(502)
    expect(err.details).toEqual({ code: 'RAMP_AUTHENTICATION_FAILED' })
  })

  test('a refusal passes through with its status and details', async () => {
    const err = await rampError(adapter.connect({ baseUrl: sim.apiUrl, apiKey: 'key-a' }).createOnboardingSession('cust-2', { ReturnURL: 'nope', FiatOptions: [] }))
    expect(err.status).toBe(400)
    expect((err.details as any).code).toBe('RAMP_REQUEST_REFUSED')
    expect((err.details as any).type).toBe('InvalidMessage')
  })
})

describe('a partner that misbehaves', () => {
  const call = () => adapter.connect({ baseUrl: bad.url, apiKey: 'k' }).createOnboardingSession('c', { ReturnURL: 'https://x.example', FiatOptions: [{ FiatCurrencyCode: 'EUR' }] })
  const cases: Array<[string, number, string]> = [
    ['down', 503, 'RAMP_UNAVAILABLE'],
    ['rate-limited', 503, 'RAMP_RATE_LIMITED'],
    ['bad-key', 502, 'RAMP_AUTHENTICATION_FAILED'],
    ['not-found', 404, 'RAMP_RESOURCE_NOT_FOUND'],
    ['garbage', 503, 'RAMP_UNAVAILABLE'],
  ]
  for (const [mode, status, code] of cases) {
    test(`${mode}: ${status} ${code}`, async () => {
      bad.mode = mode as never
      const err = await rampError(call())
      expect(err.status).toBe(status)
      expect((err.details as any).code).toBe(code)
    })
  }

  test('rate limiting keeps the partner\'s retry-after', async () => {
    bad.mode = 'rate-limited'
    expect((await rampError(call())).details).toEqual({ code: 'RAMP_RATE_LIMITED', retryAfterSeconds: 7 })
  })

  test('a refusal keeps the partner\'s status, type and invalid fields', async () => {
    bad.mode = 'refuse'
    const err = await rampError(call())
    expect(err.status).toBe(422)
    expect(err.details).toEqual({ code: 'RAMP_REQUEST_REFUSED', type: 'InvalidMessage', detail: 'FiatCurrency is not supported', fields: { FiatCurrency: 'unsupported' } })
  })

  test('slow: 503 RAMP_TIMEOUT after the time limit', async () => {
    bad.mode = 'slow'
    const started = performance.now()
    const err = await rampError(call())
    expect(err.details).toEqual({ code: 'RAMP_TIMEOUT' })
    // at the limit, long before the partner's 10 s answer (the margin is for a busy machine)
    expect(performance.now() - started).toBeLessThan(5000)
  })

  test('nothing listening: 503 RAMP_UNREACHABLE', async () => {
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const url = `http://127.0.0.1:${probe.port}`
    probe.stop(true)
    const err = await rampError(adapter.connect({ baseUrl: url, apiKey: 'k' }).getCustomer('c'))
    expect(err.details).toEqual({ code: 'RAMP_UNREACHABLE' })
  })

  test('the API key travels in X-Api-Key', async () => {
    bad.mode = 'ok'
    await call()
    expect(bad.keys.at(-1)).toBe('k')
  })
})
