/** The client side of the export envelope, written from the documented construction (docs/wallets.md). */
import { x25519 } from '@noble/curves/ed25519'
import { hkdf } from '@noble/hashes/hkdf'
import { sha256 } from '@noble/hashes/sha2'
import { createDecipheriv } from 'node:crypto'

/** Opens an export envelope the way a client does (the documented construction). */
export function openEnvelope(clientPrivate: Uint8Array, env: { serverPublicKey: string; nonce: string; ciphertext: string; aad: string }): string {
  const serverPub = Buffer.from(env.serverPublicKey, 'base64')
  const clientPub = x25519.getPublicKey(clientPrivate)
  const shared = x25519.getSharedSecret(clientPrivate, serverPub)
  const key = hkdf(sha256, shared, Buffer.concat([serverPub, clientPub]), new TextEncoder().encode('slipway-wallet-export-v1'), 32)
  const body = Buffer.from(env.ciphertext, 'base64')
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(env.nonce, 'base64'))
  d.setAAD(Buffer.from(env.aad))
  d.setAuthTag(body.subarray(body.length - 16))
  return Buffer.concat([d.update(body.subarray(0, body.length - 16)), d.final()]).toString('utf8')
}

