/**
 * Access tokens are signed and checked with node:crypto (src/lib/jwt.ts); jose, an
 * independent implementation, checks that they are standard HS256 JWTs both ways and
 * makes the tokens each refusal is tested with.
 */
import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { SignJWT, importJWK, jwtVerify, type JWTPayload } from 'jose'
import { mac, signAccessToken, verifyAccessToken } from '@/lib/jwt'
import { hashPassword } from '@/lib/passwords'

const key = new TextEncoder().encode('jwt-test-key-jwt-test-key-jwt-test-key!!')
const now = Date.UTC(2026, 10, 23, 12, 0, 0)
const nowS = now / 1000
const user = { sub: 'u1', tenantId: 't1', role: 'user' as const }

/** A token jose signs with our header and `payload` as given. */
const joseToken = (payload: Record<string, unknown>, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }, signingKey = key) =>
  new SignJWT(payload as JWTPayload).setProtectedHeader(header as { alg: string }).sign(signingKey)

const b64 = (s: string) => Buffer.from(s).toString('base64url')

describe('access tokens', () => {
  test('a token signed here is a standard HS256 JWT: jose verifies it and reads the same claims', async () => {
    const token = signAccessToken(key, user, now, 900)
    const { payload, protectedHeader } = await jwtVerify(token, key, { algorithms: ['HS256'], currentDate: new Date(now) })
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(payload).toEqual({ sub: 'u1', tenantId: 't1', role: 'user', iat: nowS, exp: nowS + 900 })
    expect(verifyAccessToken(key, token, now)).toEqual({ sub: 'u1', tenantId: 't1', role: 'user', iat: nowS, exp: nowS + 900 })
  })

  test('a token jose signs with the same key and header verifies here (tokens issued before this implementation stay valid)', async () => {
    const token = await joseToken({ tenantId: null, role: 'admin', sub: 'a1', iat: nowS, exp: nowS + 60 })
    expect(verifyAccessToken(key, token, now)).toEqual({ sub: 'a1', tenantId: null, role: 'admin', iat: nowS, exp: nowS + 60 })
  })

  test('valid until exp, refused at exp itself and after; a future nbf is refused', async () => {
    const token = signAccessToken(key, user, now, 900)
    expect(verifyAccessToken(key, token, now + 899_999)).not.toBeNull()
    expect(verifyAccessToken(key, token, now + 900_000)).toBeNull()
    expect(verifyAccessToken(key, token, now + 901_000)).toBeNull()
    expect(verifyAccessToken(key, await joseToken({ ...user, iat: nowS, exp: nowS + 60, nbf: nowS + 10 }), now)).toBeNull()
    expect(verifyAccessToken(key, await joseToken({ ...user, iat: nowS, exp: nowS + 60, nbf: nowS }), now)).not.toBeNull()
  })

  test('another key, another algorithm, alg none or any other header is refused', async () => {
    const claims = { ...user, iat: nowS, exp: nowS + 60 }
    expect(verifyAccessToken(key, await joseToken(claims), now)).not.toBeNull()
    expect(verifyAccessToken(key, await joseToken(claims, undefined, new TextEncoder().encode('another-key-another-key-another-key!!')), now)).toBeNull()
    expect(verifyAccessToken(key, await joseToken(claims, { alg: 'HS512', typ: 'JWT' }), now)).toBeNull()
    expect(verifyAccessToken(key, await joseToken(claims, { alg: 'HS256' }), now)).toBeNull()
    expect(verifyAccessToken(key, await joseToken(claims, { alg: 'HS256', typ: 'JWT', kid: 'k1' }), now)).toBeNull()
    const [, payload] = (signAccessToken(key, user, now, 900)).split('.')
    expect(verifyAccessToken(key, `${b64(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.`, now)).toBeNull()
    expect(verifyAccessToken(key, `${b64(JSON.stringify({ alg: 'none' }))}.${payload}.`, now)).toBeNull()
  })

  test('a changed payload or signature, and malformed tokens, are refused', async () => {
    const token = signAccessToken(key, user, now, 900)
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const admin = b64(JSON.stringify({ tenantId: null, role: 'admin', sub: 'u1', iat: nowS, exp: nowS + 900 }))
    expect(verifyAccessToken(key, `${header}.${admin}.${signature}`, now)).toBeNull()
    const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A')
    expect(verifyAccessToken(key, `${header}.${payload}.${flipped}`, now)).toBeNull()
    for (const bad of ['', '.', '..', 'abc', `${header}.${payload}`, `${header}.${payload}.${signature}.`, `${header}.${payload}.${signature}.x`, `${header}..${signature}`, `${header}.${payload}.`, ` ${token}`, `${token} `]) {
      expect(verifyAccessToken(key, bad, now)).toBeNull()
    }
  })

  test('correctly signed tokens with claims that are not ours are refused', async () => {
    const cases: Array<Record<string, unknown>> = [
      { tenantId: 't1', role: 'user', iat: nowS, exp: nowS + 60 }, // no sub
      { sub: 'u1', tenantId: 't1', role: 'root', iat: nowS, exp: nowS + 60 }, // unknown role
      { sub: 'u1', tenantId: 't1', role: 'user', exp: nowS + 60 }, // no iat
      { sub: 'u1', tenantId: 't1', role: 'user', iat: nowS }, // no exp
      { sub: 'u1', tenantId: 't1', role: 'user', iat: nowS, exp: String(nowS + 60) }, // exp not a number
      { sub: 'u1', tenantId: null, role: 'user', iat: nowS, exp: nowS + 60 }, // a user without a tenant
      { sub: 'u1', tenantId: 't1', role: 'admin', iat: nowS, exp: nowS + 60 }, // an admin with one
      { sub: 'u1', tenantId: 7, role: 'user', iat: nowS, exp: nowS + 60 },
      { sub: 7, tenantId: 't1', role: 'user', iat: nowS, exp: nowS + 60 },
    ]
    for (const claims of cases) expect(verifyAccessToken(key, await joseToken(claims), now)).toBeNull()
    // a payload that is not a JSON object, correctly signed
    const { createHmac } = await import('node:crypto')
    const header = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
    for (const body of ['[1,2]', '"text"', 'null', '{not json', '']) {
      const input = `${header}.${b64(body)}`
      expect(verifyAccessToken(key, `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`, now)).toBeNull()
    }
  })

  test('signing and verifying do not queue behind password hashes on the native pool', async () => {
    await hashPassword('warm-up-Passw0rd')
    let stop = false
    let hashed = 0
    const hashing = Promise.all(Array.from({ length: 16 }, async () => {
      while (!stop) {
        await hashPassword('Bench-passw0rd')
        hashed++
      }
    }))
    try {
      while (hashed < 4) await Bun.sleep(5)
      // With 16 hashes in flight the pool's queue is full: work sent through it would
      // finish only after hashes ahead of it did. Work done inline finishes in this turn.
      const before = hashed
      for (let i = 0; i < 20; i++) expect(verifyAccessToken(key, signAccessToken(key, user, now, 900), now)).not.toBeNull()
      expect(hashed).toBe(before)
    } finally {
      stop = true
      await hashing
    }
  })

  test('a key refused by WebCrypto just before (a point not on its curve) leaves the next token check unharmed', async () => {
    const token = signAccessToken(key, user, now, 900)
    // the shape of the shoppers' refusal (SHOPPER_JWK_INVALID): OpenSSL queues an error for it
    await expect(importJWK({ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }, 'ES256')).rejects.toThrow()
    expect(verifyAccessToken(key, token, now)?.sub).toBe(user.sub)
    expect(mac(key, 'a')).toBe(createHmac('sha256', key).update('a').digest('base64url'))
  })
})
