/**
 * A software WebAuthn authenticator (ES256, `none` attestation, discoverable credentials), written
 * from the WebAuthn Level 3 data formats, for tests that need passkey responses without a browser
 * (the cross-tenant sweep). The browser tests use Chromium's virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url')
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest()

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n]
  if (n < 256) return [(major << 5) | 24, n]
  return [(major << 5) | 25, n >> 8, n & 255]
}
/** Canonical CBOR for the few types attestation objects and COSE keys use. */
function cbor(v: unknown): number[] {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v)
  if (typeof v === 'string') return [...head(3, Buffer.byteLength(v)), ...Buffer.from(v)]
  if (v instanceof Uint8Array) return [...head(2, v.length), ...v]
  if (v instanceof Map) return [...head(5, v.size), ...[...v].flatMap(([k, x]) => [...cbor(k), ...cbor(x)])]
  throw new Error('cbor: unsupported value')
}

interface Credential { id: Uint8Array; key: KeyObject; rpId: string; userHandle: string; counter: number }

export class SoftAuthenticator {
  readonly credentials: Credential[] = []

  /** A registration response for creation options, as the browser would send it from `origin`. */
  create(options: { challenge: string; rp: { id: string }; user: { id: string } }, origin: string) {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const jwk = publicKey.export({ format: 'jwk' })
    const cose = new Uint8Array(cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]])))
    const id = new Uint8Array(randomBytes(16))
    this.credentials.push({ id, key: privateKey, rpId: options.rp.id, userHandle: options.user.id, counter: 0 })
    const authData = Buffer.concat([sha256(options.rp.id), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), Buffer.from([0, id.length]), id, cose])
    const attestationObject = new Uint8Array(cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]])))
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false })
    return {
      id: b64u(id), rawId: b64u(id), type: 'public-key' as const,
      response: { clientDataJSON: b64u(Buffer.from(clientDataJSON)), attestationObject: b64u(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    }
  }

  /** An assertion for request options with the first credential of their relying party (or `credentialId`). */
  get(options: { challenge: string; rpId: string }, origin: string, credentialId?: string) {
    const c = this.credentials.find((x) => x.rpId === options.rpId && (!credentialId || b64u(x.id) === credentialId))
    if (!c) throw new Error(`no credential for ${options.rpId}`)
    c.counter += 1
    const count = Buffer.alloc(4)
    count.writeUInt32BE(c.counter)
    const authData = Buffer.concat([sha256(options.rpId), Buffer.from([0x05]), count])
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }))
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), c.key)
    return {
      id: b64u(c.id), rawId: b64u(c.id), type: 'public-key' as const,
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: c.userHandle },
      clientExtensionResults: {},
    }
  }
}
