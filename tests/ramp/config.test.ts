/** The bank ramp's configuration variables: defaults, refusals, and a private key never printed. */
import { expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '@/config'

const base = { DATABASE_URL: ':memory:' }

test('defaults: a 10 s time limit and the embedded simulator without a chain', () => {
  const c = loadConfig(base)
  expect(c.bankRampTimeoutMs).toBe(10_000)
  expect(c.bankRampSimulator).toBe('embedded')
  expect(c.bankRampSimulatorRpcUrl).toBeUndefined()
})

test('bad values stop start-up with a message naming each variable, never the private key', () => {
  const secret = '0xnot-a-key-but-secret-looking-text'
  let err: unknown
  try {
    loadConfig({ ...base, BANK_RAMP_TIMEOUT_MS: '5', BANK_RAMP_SIMULATOR: 'maybe', BANK_RAMP_SIMULATOR_RPC_URL: 'ftp://x', BANK_RAMP_SIMULATOR_TOKEN_ADDRESS: '0x12', BANK_RAMP_SIMULATOR_PRIVATE_KEY: secret })
  } catch (e) {
    err = e
  }
  expect(err).toBeInstanceOf(ConfigError)
  const msg = (err as Error).message
  for (const name of ['BANK_RAMP_TIMEOUT_MS', 'BANK_RAMP_SIMULATOR (embedded or off)', 'BANK_RAMP_SIMULATOR_RPC_URL', 'BANK_RAMP_SIMULATOR_TOKEN_ADDRESS', 'BANK_RAMP_SIMULATOR_PRIVATE_KEY']) expect(msg).toContain(name)
  expect(msg).not.toContain(secret)
})
