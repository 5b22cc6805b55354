import { describe, expect, test } from 'bun:test'
import { x25519 } from '@noble/curves/ed25519'
import { openEnvelope } from '@tests/wallets/envelope'
import { Sealer } from '@/lib/crypto'
import {
  addressOf, deriveFromMnemonic, encryptToX25519, exportFormat, openKey, parsePrivateKey, sealKey, slip10Ed25519,
} from '@/modules/wallets/keys'

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const HARDHAT = 'test test test test test test test test test test test junk'
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

describe('derivation from known mnemonics', () => {
  test('EVM m/44\'/60\'/0\'/0/i gives the well-known addresses', () => {
    expect(addressOf('evm', deriveFromMnemonic('evm', ABANDON, 0))).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94')
    expect(addressOf('evm', deriveFromMnemonic('evm', ABANDON, 1))).toBe('0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0')
    expect(addressOf('evm', deriveFromMnemonic('evm', HARDHAT, 0))).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(hex(deriveFromMnemonic('evm', HARDHAT, 0))).toBe('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
  })

  test('Solana m/44\'/501\'/i\'/0\' gives the well-known address', () => {
    expect(addressOf('solana', deriveFromMnemonic('solana', ABANDON, 0))).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')
  })

  test('SLIP-0010 ed25519 test vector 1', () => {
    const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')
    expect(hex(slip10Ed25519(seed, []))).toBe('2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7')
    expect(hex(slip10Ed25519(seed, [0]))).toBe('68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3')
    expect(hex(slip10Ed25519(seed, [0, 1]))).toBe('b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2')
    expect(hex(slip10Ed25519(seed, [0, 1, 2]))).toBe('92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9')
  })
})

describe('private key parsing', () => {
  test('EVM hex with or without 0x; garbage is refused', () => {
    const k = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
    expect(hex(parsePrivateKey('evm', k)!)).toBe(k)
    expect(hex(parsePrivateKey('evm', `0x${k}`)!)).toBe(k)
    expect(parsePrivateKey('evm', 'abc')).toBeNull()
    expect(parsePrivateKey('evm', '0'.repeat(64))).toBeNull()
  })

  test('Solana base58 secret key, seed and JSON array round-trip; a corrupt secret key is refused', () => {
    const seed = deriveFromMnemonic('solana', ABANDON, 0)
    const b58 = exportFormat('solana', seed)
    expect(hex(parsePrivateKey('solana', b58)!)).toBe(hex(seed))
    const full = Array.from(Buffer.concat([Buffer.from(seed), Buffer.alloc(32, 1)]))
    expect(parsePrivateKey('solana', JSON.stringify(full))).toBeNull()
    expect(parsePrivateKey('solana', 'not-base58-0OIl')).toBeNull()
  })
})

describe('key envelope at rest', () => {
  const master = new Sealer(Buffer.alloc(32, 3))
  const binding = { tenantId: 't1', walletId: 'w1', address: '0xabc' }

  test('opens with the same tenant, wallet and address, and with nothing else', () => {
    const secret = Uint8Array.from(Buffer.alloc(32, 9))
    const sealed = sealKey(master, binding, secret)
    expect(sealed.keyVersion).toBe(1)
    expect(sealed.keySealed).not.toContain(hex(secret))
    expect(hex(openKey(master, binding, sealed))).toBe(hex(secret))
    expect(() => openKey(master, { ...binding, tenantId: 't2' }, sealed)).toThrow()
    expect(() => openKey(master, { ...binding, walletId: 'w2' }, sealed)).toThrow()
    expect(() => openKey(master, { ...binding, address: '0xabd' }, sealed)).toThrow()
    expect(() => openKey(new Sealer(Buffer.alloc(32, 4)), binding, sealed)).toThrow()
  })

  test('a rotated master key still opens data keys of the previous version', () => {
    const sealed = sealKey(master, binding, Uint8Array.from(Buffer.alloc(32, 5)))
    const rotated = new Sealer(Buffer.alloc(32, 8), 2, { 1: Buffer.alloc(32, 3) })
    expect(hex(openKey(rotated, binding, sealed))).toBe('05'.repeat(32))
  })
})

describe('export envelope', () => {
  test('the holder of the X25519 private key decrypts it; the associated data is checked', () => {
    const clientPriv = x25519.utils.randomPrivateKey()
    const env = encryptToX25519(x25519.getPublicKey(clientPriv), 'secret text', 'wallet-1')
    expect(openEnvelope(clientPriv, env)).toBe('secret text')
    expect(() => openEnvelope(clientPriv, { ...env, aad: 'wallet-2' })).toThrow()
    expect(() => openEnvelope(x25519.utils.randomPrivateKey(), env)).toThrow()
  })
})
