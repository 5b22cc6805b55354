/**
 * argon2id's cost: the production cost by default (OWASP's floor, 19 MiB, t=2, p=1), refused
 * lower under NODE_ENV=production. The tests run at 1 MiB (tests/setup.ts); a stored hash carries
 * its own parameters, so a hash made at either cost is checked right whatever the cost now.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '@/config'
import { hashPassword, hashPasswordOnce, PASSWORD_HASH_MEMORY_KIB, setPasswordHashMemory, verifyPassword } from '@/lib/passwords'
import { makeApp } from '@tests/helpers/app'

const testCost = Number(process.env.PASSWORD_HASH_MEMORY_KIB ?? PASSWORD_HASH_MEMORY_KIB)
afterAll(() => setPasswordHashMemory(testCost))

describe('argon2id cost', () => {
  test('by default new hashes are argon2id at 19456 KiB, t=2, p=1, and an app built without the setting makes them', async () => {
    expect(PASSWORD_HASH_MEMORY_KIB).toBe(19_456)
    expect(loadConfig({}).passwordHashMemoryKib).toBe(19_456)
    const t = await makeApp({ env: { PASSWORD_HASH_MEMORY_KIB: '' }, admin: false })
    try {
      const hash = await hashPassword('Passw0rd-long')
      expect(hash).toStartWith('$argon2id$v=19$m=19456,t=2,p=1$')
      expect(await verifyPassword(hash, 'Passw0rd-long')).toBe(true)
      expect(await verifyPassword(hash, 'Passw0rd-lonG')).toBe(false)
    } finally {
      await t.close()
    }
  })

  test('a lower cost is taken outside production and refused under NODE_ENV=production', async () => {
    expect(loadConfig({ PASSWORD_HASH_MEMORY_KIB: '1024' }).passwordHashMemoryKib).toBe(1024)
    expect(() => loadConfig({ NODE_ENV: 'production', PASSWORD_HASH_MEMORY_KIB: '1024' })).toThrow(ConfigError)
    expect(() => loadConfig({ NODE_ENV: 'production', PASSWORD_HASH_MEMORY_KIB: '1024' })).toThrow(/PASSWORD_HASH_MEMORY_KIB/)
    expect(() => loadConfig({ PASSWORD_HASH_MEMORY_KIB: '8' })).toThrow(/PASSWORD_HASH_MEMORY_KIB/)
    expect(loadConfig({ NODE_ENV: 'production', PASSWORD_HASH_MEMORY_KIB: '65536', JWT_SECRET: 'x'.repeat(40), MASTER_KEY: Buffer.alloc(32, 1).toString('base64') }).passwordHashMemoryKib).toBe(65_536)
  })

  test('hashes made at either cost are checked whatever the cost now', async () => {
    setPasswordHashMemory(1024)
    const cheap = await hashPassword('Cheap-Passw0rd')
    expect(cheap).toStartWith('$argon2id$v=19$m=1024,t=2,p=1$')
    setPasswordHashMemory(PASSWORD_HASH_MEMORY_KIB)
    const dear = await hashPassword('Dear-Passw0rd')
    expect(await verifyPassword(cheap, 'Cheap-Passw0rd')).toBe(true)
    setPasswordHashMemory(1024)
    expect(await verifyPassword(dear, 'Dear-Passw0rd')).toBe(true)
    expect(await verifyPassword(dear, 'Cheap-Passw0rd')).toBe(false)
  })

  // The bootstrap admin's one hash at a first start (src/modules/auth/service.ts): the runtime's argon2,
  // at this process's cost like any new hash, and checked by the addon at sign-in.
  test('the one-off hash (hashPasswordOnce) is argon2id at the cost in effect, t=2, p=1, and checks like ours', async () => {
    for (const kib of [1024, PASSWORD_HASH_MEMORY_KIB]) {
      setPasswordHashMemory(kib)
      const once = await hashPasswordOnce('Once-Passw0rd')
      expect(once).toStartWith(`$argon2id$v=19$m=${kib},t=2,p=1$`)
      expect(await verifyPassword(once, 'Once-Passw0rd')).toBe(true)
      expect(await verifyPassword(once, 'Once-Passw0rD')).toBe(false)
    }
  })

  // Bun's own argon2id (Bun.password) was weighed against @node-rs/argon2 (docs/benchmarks.md, "Signed
  // registration"): about 3 times the CPU per hash, so it was not taken for requests (only for the bootstrap
  // admin's one hash, above). Its strings are the same PHC format: every stored hash checks either way.
  test("Bun.password's argon2id strings and ours check with each other, both ways", async () => {
    setPasswordHashMemory(1024)
    const ours = await hashPassword('Ours-Passw0rd')
    const bun = await Bun.password.hash('Bun-Passw0rd', { algorithm: 'argon2id', memoryCost: 1024, timeCost: 2 })
    expect(bun).toStartWith('$argon2id$v=19$m=1024,t=2,p=1$')
    expect(await verifyPassword(bun, 'Bun-Passw0rd')).toBe(true)
    expect(await verifyPassword(bun, 'Ours-Passw0rd')).toBe(false)
    expect(await Bun.password.verify('Ours-Passw0rd', ours)).toBe(true)
    expect(await Bun.password.verify('Bun-Passw0rd', ours)).toBe(false)
  })
})
