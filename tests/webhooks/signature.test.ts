import { describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { deliveryHeaders, newWebhookSecret, secretHint, signPayload } from '@/modules/webhooks/signature'

describe('webhook signatures', () => {
  test('match the Standard Webhooks test vector', () => {
    const sig = signPayload('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
    expect(sig).toBe('g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  test('agree with the standardwebhooks library for random secrets, and verify with it', () => {
    for (let i = 0; i < 20; i++) {
      const secret = newWebhookSecret()
      const id = `evt_${crypto.randomUUID().replace(/-/g, '')}`
      const ts = Math.floor(Date.now() / 1000)
      const body = JSON.stringify({ id, n: i, s: 'é✓' })
      const wh = new Webhook(secret)
      expect(`v1,${signPayload(secret, id, ts, body)}`).toBe(wh.sign(id, new Date(ts * 1000), body))
      const headers = deliveryHeaders(secret, id, 'ramp.kyc.updated', ts, body)
      expect(wh.verify(body, headers)).toEqual(JSON.parse(body))
      expect(headers['x-webhook-signature']).toBe(`v1=${signPayload(secret, id, ts, body)}`)
      expect(() => wh.verify(body + ' ', headers)).toThrow()
    }
  })

  test('secrets are whsec_ + base64 of 32 bytes; the hint is the four characters before the final =', () => {
    const secret = newWebhookSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secret.slice(6), 'base64').length).toBe(32)
    expect(secretHint(secret)).toBe(secret.slice(-5, -1))
    expect(secretHint('whsec_abcdWXYZ=')).toBe('WXYZ')
  })
})
