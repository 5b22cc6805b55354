/**
 * Key material: generation, import parsing, HD derivation, the at-rest envelope and
 * the export envelope. Nothing here logs or throws with key bytes in a message.
 *
 * At rest (`aes_single`): a fresh 32-byte data key per wallet encrypts the private key
 * with AES-256-GCM, associated data `wallet:<tenant>:<wallet>:<address>`; the data key
 * is itself sealed by MASTER_KEY with associated data `wallet:<tenant>:<wallet>:dek`.
 * A sealed key copied to another row, tenant or address fails to open. The MASTER_KEY
 * version is kept beside it, so keys can be re-wrapped after a rotation without
 * touching the encrypted private keys.
 *
 * Export: ephemeral X25519 (server) with the client's X25519 public key → shared secret
 * → HKDF-SHA256 (salt = serverPublicKey ‖ clientPublicKey, info `slipway-wallet-export-v1`)
 * → 32-byte key → AES-256-GCM with a 12-byte nonce and associated data = the wallet id.
 */
import { createCipheriv, randomBytes } from 'node:crypto'
import { x25519, ed25519 } from '@noble/curves/ed25519'
import { hkdf } from '@noble/hashes/hkdf'
import { hmac } from '@noble/hashes/hmac'
import { sha256, sha512 } from '@noble/hashes/sha2'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english'
import { Keypair, PublicKey } from '@solana/web3.js'
import { base58 as bs58 } from '@scure/base'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { bytesToHex, getAddress, hexToBytes, isAddress } from 'viem'
import type { Family } from '../../adapters/chain/port'
import { EXPORT_SCHEME } from './model'

export interface KeyPair {
  /** 32 bytes: the secp256k1 private key (EVM) or the ed25519 seed (Solana) */
  secret: Uint8Array
  address: string
}

export function generateKey(family: Family): KeyPair {
  // viem's generatePrivateKey draws a valid secp256k1 scalar from the platform CSPRNG.
  const secret = family === 'evm' ? hexToBytes(generatePrivateKey()) : Uint8Array.from(randomBytes(32))
  return { secret, address: addressOf(family, secret) }
}

export function addressOf(family: Family, secret: Uint8Array): string {
  if (family === 'evm') return privateKeyToAccount(bytesToHex(secret)).address
  return Keypair.fromSeed(secret).publicKey.toBase58()
}

export { addressKeyOf } from './address-key'

/** A valid address in its display form, or null. */
export function normalizeAddress(family: Family, address: string): string | null {
  if (family === 'evm') return isAddress(address, { strict: false }) ? getAddress(address) : null
  try {
    const pk = new PublicKey(address)
    return pk.toBase58() === address ? address : null
  } catch {
    return null
  }
}

export const keyFormatOf = (family: Family) => (family === 'evm' ? 'hex' as const : 'base58-secret-key' as const)

/** What a user exports and wallets import: `0x` hex for EVM; base58 of the 64-byte secret key (seed ‖ public key) for Solana. */
export function exportFormat(family: Family, secret: Uint8Array): string {
  if (family === 'evm') return bytesToHex(secret)
  return bs58.encode(Keypair.fromSeed(secret).secretKey)
}

/**
 * A private key as users paste it: EVM 32-byte hex (with or without `0x`); Solana
 * base58 of the 64-byte secret key or of the 32-byte seed, or the JSON byte array of
 * solana-keygen. Null when it is none of these (the caller answers 400 without echoing it).
 */
export function parsePrivateKey(family: Family, text: string): Uint8Array | null {
  const v = text.trim()
  if (family === 'evm') {
    const hex = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null
    const secret = hexToBytes(`0x${hex}`)
    try {
      privateKeyToAccount(bytesToHex(secret))
      return secret
    } catch {
      return null
    }
  }
  let bytes: Uint8Array | null = null
  if (v.startsWith('[')) {
    try {
      const arr = JSON.parse(v)
      if (Array.isArray(arr) && arr.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) bytes = Uint8Array.from(arr)
    } catch { /* not JSON */ }
  } else {
    try {
      bytes = bs58.decode(v)
    } catch { /* not base58 */ }
  }
  if (!bytes) return null
  if (bytes.length === 32) return bytes
  if (bytes.length !== 64) return null
  const seed = bytes.slice(0, 32)
  // The second half must be the seed's public key, or the pasted key is corrupt.
  const pub = ed25519.getPublicKey(seed)
  return Buffer.compare(Buffer.from(pub), Buffer.from(bytes.slice(32))) === 0 ? seed : null
}

export const EVM_PATH = (i: number) => `m/44'/60'/0'/0/${i}`

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(normalizeMnemonic(mnemonic), wordlist)
}

const normalizeMnemonic = (m: string) => m.trim().toLowerCase().split(/\s+/).join(' ')

/** BIP-39 seed → BIP-32 secp256k1 (EVM, m/44'/60'/0'/0/i) or SLIP-0010 ed25519 (Solana, m/44'/501'/i'/0'). */
export function deriveFromMnemonic(family: Family, mnemonic: string, accountIndex: number): Uint8Array {
  const seed = mnemonicToSeedSync(normalizeMnemonic(mnemonic))
  if (family === 'evm') {
    const key = HDKey.fromMasterSeed(seed).derive(EVM_PATH(accountIndex)).privateKey
    if (!key) throw new Error('derivation failed')
    return key
  }
  return slip10Ed25519(seed, [44, 501, accountIndex, 0])
}

/**
 * SLIP-0010 for ed25519 (hardened steps only, as the scheme requires), built on
 * @noble/hashes' HMAC-SHA512; checked against SLIP-0010's published test vectors.
 */
export function slip10Ed25519(seed: Uint8Array, hardenedPath: number[]): Uint8Array {
  let I = hmac(sha512, new TextEncoder().encode('ed25519 seed'), seed)
  let key = I.slice(0, 32)
  let chainCode = I.slice(32)
  for (const index of hardenedPath) {
    const data = new Uint8Array(37)
    data.set(key, 1)
    new DataView(data.buffer).setUint32(33, (index | 0x80000000) >>> 0)
    I = hmac(sha512, chainCode, data)
    key = I.slice(0, 32)
    chainCode = I.slice(32)
  }
  return key
}

export { dekAad, openKey, sealKey, type KeyBinding, type SealedKey } from './sealing'

export { EXPORT_SCHEME }
const EXPORT_INFO = new TextEncoder().encode('slipway-wallet-export-v1')

export interface ExportEnvelope {
  scheme: typeof EXPORT_SCHEME
  /** server's ephemeral X25519 public key, base64 */
  serverPublicKey: string
  /** 12-byte AES-GCM nonce, base64 */
  nonce: string
  /** AES-256-GCM ciphertext followed by the 16-byte tag, base64 */
  ciphertext: string
  /** associated data the ciphertext is bound to (the wallet id) */
  aad: string
}

/** A 32-byte X25519 public key from base64 / base64url / hex, or null. */
export function parseX25519PublicKey(text: string): Uint8Array | null {
  const v = text.trim()
  let bytes: Buffer | null = null
  if (/^[0-9a-fA-F]{64}$/.test(v)) bytes = Buffer.from(v, 'hex')
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) bytes = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
  if (!bytes || bytes.length !== 32 || bytes.every((b) => b === 0)) return null
  return Uint8Array.from(bytes)
}

/** Encrypts `plaintext` to the holder of the X25519 private key matching `recipient`. */
export function encryptToX25519(recipient: Uint8Array, plaintext: string, aad: string): ExportEnvelope {
  const ephemeral = x25519.utils.randomPrivateKey()
  const serverPublicKey = x25519.getPublicKey(ephemeral)
  const shared = x25519.getSharedSecret(ephemeral, recipient)
  const salt = new Uint8Array(64)
  salt.set(serverPublicKey, 0)
  salt.set(recipient, 32)
  const key = hkdf(sha256, shared, salt, EXPORT_INFO, 32)
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(Buffer.from(aad))
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
  ephemeral.fill(0)
  key.fill(0)
  shared.fill(0)
  return { scheme: EXPORT_SCHEME, serverPublicKey: Buffer.from(serverPublicKey).toString('base64'), nonce: nonce.toString('base64'), ciphertext: ct.toString('base64'), aad }
}
