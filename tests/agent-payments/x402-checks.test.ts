/**
 * What the x402 rail checks before signing (src/modules/agent-payments/x402/x402-checks.ts), as a
 * table: each field of a payment requirement that the execution does not allow is named, and
 * the key signs only a TransferWithAuthorization of exactly the chosen requirement.
 */
import { describe, expect, test } from 'bun:test'
import type { PaymentRequirements } from '@x402/core/types'
import { refusalsOf, signingRefusal, type Allowed } from '@/modules/agent-payments/x402/x402-checks'

const USDC = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
const SHOP = '0xE04Ec2E4549Fdbf1E04a1cCC1210C7774f23b862'
const WALLET = '0xef33E3a36187f6DBCa474bf8d57BB6BFff1DAa1b'
const allowed: Allowed = { network: 'eip155:11155111', chainId: 11155111, asset: USDC, payTo: SHOP, payeeRefusals: () => [], maxUnits: 50_000n, maxSeconds: 300 }
const ok: PaymentRequirements = { scheme: 'exact', network: 'eip155:11155111', asset: USDC.toLowerCase(), amount: '10000', payTo: SHOP, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } }

describe('refusalsOf', () => {
  test('a requirement within the execution: no refusal (addresses compared without case)', () => {
    expect(refusalsOf(ok, allowed)).toEqual([])
    expect(refusalsOf({ ...ok, amount: '50000' }, allowed)).toEqual([])
    expect(refusalsOf({ ...ok, payTo: '0x' + '1'.repeat(40) }, { ...allowed, payTo: null })).toEqual([])
  })
  const cases: [string, Partial<PaymentRequirements>, RegExp][] = [
    ['another scheme', { scheme: 'upto' }, /scheme upto is not exact/],
    ['another network', { network: 'eip155:84532' }, /network eip155:84532 is not the execution's/],
    ['another asset', { asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }, /asset .* is not the execution's currency/],
    ['another payee than the merchant', { payTo: '0x' + '2'.repeat(40) }, /payTo 0x2+ is not the merchant's/],
    ['a payTo that is not an address', { payTo: 'merchant' }, /payTo is not an address/],
    ['above the reservation', { amount: '50001' }, /amount 50001 is above the reserved 50000/],
    ['zero', { amount: '0' }, /not a positive integer/],
    ['a decimal amount', { amount: '0.01' }, /not a positive integer/],
    ['Permit2', { extra: { name: 'USDC', version: '2', assetTransferMethod: 'permit2' } }, /permit2 is not eip3009/],
    ['no EIP-712 domain', { extra: {} }, /extra.name and extra.version/],
    ['an authorization valid too long', { maxTimeoutSeconds: 301 }, /maxTimeoutSeconds 301 is outside 1-300/],
    ['no time at all', { maxTimeoutSeconds: 0 }, /maxTimeoutSeconds 0/],
  ]
  for (const [what, change, why] of cases) {
    test(`refused: ${what}`, () => {
      const reasons = refusalsOf({ ...ok, ...change } as PaymentRequirements, allowed)
      expect(reasons).toHaveLength(1)
      expect(reasons[0]).toMatch(why)
    })
  }
})

describe('signingRefusal', () => {
  const now = 1_800_000_000
  const typed = (message: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
    primaryType: 'TransferWithAuthorization',
    domain: { name: 'USDC', version: '2', chainId: 11155111, verifyingContract: USDC },
    message: { from: WALLET, to: SHOP, value: 10_000n, validAfter: 0n, validBefore: BigInt(now + 60), nonce: '0x' + '0'.repeat(64), ...message },
    ...rest,
  })
  test('exactly the chosen requirement, from the wallet: signed', () => {
    expect(signingRefusal(typed(), ok, allowed, WALLET, now)).toBeNull()
  })
  const cases: [string, ReturnType<typeof typed>, RegExp][] = [
    ['a Permit2 or any other typed data', typed({}, { primaryType: 'PermitTransferFrom' }), /not TransferWithAuthorization/],
    ['another token', typed({}, { domain: { name: 'USDC', version: '2', chainId: 11155111, verifyingContract: SHOP } }), /token is not the requirement's/],
    ['another chain', typed({}, { domain: { name: 'USDC', version: '2', chainId: 1, verifyingContract: USDC } }), /chain is not the execution's/],
    ['from another wallet', typed({ from: SHOP }), /not from the agent's wallet/],
    ['to another payee', typed({ to: WALLET }), /does not pay the requirement's payTo/],
    ['more than the requirement', typed({ value: 10_001n }), /value is not the requirement's amount/],
    ['valid longer than allowed', typed({ validBefore: BigInt(now + 3600) }), /valid longer than allowed/],
  ]
  for (const [what, req, why] of cases) {
    test(`refused: ${what}`, () => {
      expect(signingRefusal(req, ok, allowed, WALLET, now)).toMatch(why)
    })
  }
})
