/**
 * A local identity provider's key endpoint: serves a JWKS of RSA keys the test holds,
 * and signs ID tokens with them (jose). Keys can be rotated to exercise the refetch
 * on an unknown key id.
 */
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose'

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey']

export class FakeJwks {
  private keys: Array<{ kid: string; privateKey: PrivateKey; jwk: JWK }> = []
  fetches = 0
  private server?: ReturnType<typeof Bun.serve>
  private counter = 0

  constructor(readonly issuer: string) {}

  async addKey(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
    const kid = `key-${++this.counter}`
    this.keys.push({ kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } })
    return kid
  }

  /** Replaces every key with a new one (a provider's key rotation). */
  async rotate(): Promise<string> {
    this.keys = []
    return this.addKey()
  }

  async start() {
    if (!this.keys.length) await this.addKey()
    this.server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => {
        this.fetches++
        return Response.json({ keys: this.keys.map((k) => k.jwk) }, { headers: { 'cache-control': 'public, max-age=3600' } })
      },
    })
    return this
  }

  get url() {
    return `http://127.0.0.1:${this.server!.port}/keys`
  }

  /** An ID token signed with the current key (or `kid`); claims override the defaults. */
  async sign(claims: JWTPayload & Record<string, unknown>, opts: { kid?: string; nowMs?: number; key?: PrivateKey; alg?: string } = {}) {
    const k = opts.kid ? this.keys.find((x) => x.kid === opts.kid)! : this.keys.at(-1)!
    const now = Math.floor((opts.nowMs ?? Date.now()) / 1000)
    const payload = { iss: this.issuer, iat: now, exp: now + 3600, ...claims }
    return new SignJWT(payload).setProtectedHeader({ alg: opts.alg ?? 'RS256', kid: k.kid, typ: 'JWT' }).sign(opts.key ?? k.privateKey)
  }

  /** A key the provider never published. */
  static async strangerKey() {
    return (await generateKeyPair('RS256')).privateKey
  }

  stop() {
    this.server?.stop(true)
  }
}
