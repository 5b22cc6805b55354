/**
 * x402 version 1 requirements meet the same checks as version 2's
 * (src/modules/agent-payments/x402/x402-versions.ts maps them, x402-checks.ts judges): a v1
 * requirement (network by name, `maxAmountRequired`) is seen in v2's shape, each field the
 * execution does not allow is refused with the same reason, and the key signs only the chosen v1
 * requirement's exact TransferWithAuthorization. A 402 without a list of requirements is unreadable.
 */
import { describe, expect, test } from 'bun:test'
import { x402Client } from '@x402/core/client'
import type { PaymentRequirements } from '@x402/core/types'
import { refusalsOf, signingRefusal, type Allowed } from '@/modules/agent-payments/x402/x402-checks'
import { asV2Requirement, caipNetwork, v1NetworkName, X402HttpClient } from '@/modules/agent-payments/x402/x402-versions'

const USDC = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
const SHOP = '0xE04Ec2E4549Fdbf1E04a1cCC1210C7774f23b862'
const WALLET = '0xef33E3a36187f6DBCa474bf8d57BB6BFff1DAa1b'
const allowed: Allowed = { network: 'eip155:11155111', chainId: 11155111, asset: USDC, payTo: SHOP, payeeRefusals: () => [], maxUnits: 50_000n, maxSeconds: 300 }
/** a version 1 requirement, as the first x402 packages wrote it */
const v1 = {
  scheme: 'exact', network: 'sepolia', maxAmountRequired: '10000', resource: 'https://x402.devnet.test/weather-v1', description: '', mimeType: 'application/json',
  payTo: SHOP, maxTimeoutSeconds: 60, asset: USDC.toLowerCase(), outputSchema: null, extra: { name: 'USDC', version: '2' } as Record<string, unknown>,
}
const judge = (r: Record<string, unknown>) => refusalsOf(asV2Requirement(1, r as unknown as PaymentRequirements), allowed)

describe('the version map', () => {
  test('v1 names are CAIP-2 through the library\'s table; v2 networks and unknown names unchanged', () => {
    expect([caipNetwork(1, 'sepolia'), caipNetwork(1, 'base-sepolia'), caipNetwork(1, 'base'), caipNetwork(1, 'polygon-amoy')]).toEqual(['eip155:11155111', 'eip155:84532', 'eip155:8453', 'eip155:80002'])
    expect([caipNetwork(2, 'eip155:84532'), caipNetwork(2, 'sepolia'), caipNetwork(1, 'solana-devnet'), caipNetwork(1, 'toString')]).toEqual(['eip155:84532', 'sepolia', 'solana-devnet', 'toString'])
    expect([v1NetworkName(11155111), v1NetworkName(84532), v1NetworkName(1337)]).toEqual(['sepolia', 'base-sepolia', null])
  })
  test('a v1 requirement in v2\'s shape: maxAmountRequired is the amount; a v2 one as it is', () => {
    expect(asV2Requirement(1, v1 as unknown as PaymentRequirements)).toEqual({ scheme: 'exact', network: 'eip155:11155111', asset: USDC.toLowerCase(), amount: '10000', payTo: SHOP, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } })
    const v2 = { scheme: 'exact', network: 'eip155:11155111', asset: USDC, amount: '10000', payTo: SHOP, maxTimeoutSeconds: 60, extra: {} } as PaymentRequirements
    expect(asV2Requirement(2, v2)).toBe(v2)
  })
})

describe('version 1 requirements are refused before signing like version 2 ones', () => {
  test('a v1 requirement within the execution: no refusal', () => {
    expect(judge(v1)).toEqual([])
    expect(judge({ ...v1, maxAmountRequired: '50000' })).toEqual([])
  })
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['another scheme', { scheme: 'upto' }, /scheme upto is not exact/],
    ['another network (base-sepolia)', { network: 'base-sepolia' }, /network eip155:84532 is not the execution's eip155:11155111/],
    ['a network version 1 does not name', { network: 'anvil' }, /network anvil is not the execution's/],
    ['another asset', { asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }, /asset .* is not the execution's currency/],
    ['another payee than the merchant', { payTo: '0x' + '2'.repeat(40) }, /payTo 0x2+ is not the merchant's/],
    ['a payTo that is not an address', { payTo: 'merchant' }, /payTo is not an address/],
    ['maxAmountRequired above the reservation', { maxAmountRequired: '50001' }, /amount 50001 is above the reserved 50000/],
    ['maxAmountRequired zero', { maxAmountRequired: '0' }, /not a positive integer/],
    ['maxAmountRequired as a decimal', { maxAmountRequired: '0.01' }, /not a positive integer/],
    ['no maxAmountRequired (a v2 amount instead)', { maxAmountRequired: undefined, amount: '10000' }, /not a positive integer/],
    ['Permit2', { extra: { name: 'USDC', version: '2', assetTransferMethod: 'permit2' } }, /permit2 is not eip3009/],
    ['no EIP-712 domain', { extra: null }, /extra.name and extra.version/],
    ['an authorization valid too long', { maxTimeoutSeconds: 301 }, /maxTimeoutSeconds 301 is outside 1-300/],
    ['no time at all', { maxTimeoutSeconds: 0 }, /maxTimeoutSeconds 0/],
  ]
  for (const [what, change, why] of cases) {
    test(`refused: ${what}`, () => {
      const reasons = judge({ ...v1, ...change })
      expect(reasons).toHaveLength(1)
      expect(reasons[0]).toMatch(why)
    })
  }
})

describe('the key signs only the chosen v1 requirement', () => {
  const now = 1_800_000_000
  const chosen = asV2Requirement(1, v1 as unknown as PaymentRequirements)
  const typed = (message: Record<string, unknown> = {}, chainId = 11155111) => ({
    primaryType: 'TransferWithAuthorization',
    domain: { name: 'USDC', version: '2', chainId, verifyingContract: USDC },
    message: { from: WALLET, to: SHOP, value: 10_000n, validAfter: 0n, validBefore: BigInt(now + 60), nonce: '0x' + '0'.repeat(64), ...message },
  })
  test('its exact authorization: signed; another value, payee or chain: refused', () => {
    expect(signingRefusal(typed(), chosen, allowed, WALLET, now)).toBeNull()
    expect(signingRefusal(typed({ value: 10_001n }), chosen, allowed, WALLET, now)).toMatch(/value is not the requirement's amount/)
    expect(signingRefusal(typed({ to: WALLET }), chosen, allowed, WALLET, now)).toMatch(/does not pay the requirement's payTo/)
    expect(signingRefusal(typed({}, 84532), chosen, allowed, WALLET, now)).toMatch(/chain is not the execution's/)
  })
})

describe('reading a 402', () => {
  const read = (body: unknown, header?: string) => {
    let heard: number | undefined
    const http = new X402HttpClient(new x402Client(), (v) => { heard = v })
    const required = http.getPaymentRequiredResponse((name) => (name === 'PAYMENT-REQUIRED' ? header : undefined), body)
    return { required, heard }
  }
  test('a v1 body is read as version 1; a PAYMENT-REQUIRED header wins over it (version 2)', () => {
    expect(read({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [v1] }).heard).toBe(1)
    const v2 = { x402Version: 2, resource: { url: 'https://x402.devnet.test/weather-both' }, accepts: [{ ...v1, network: 'eip155:11155111', amount: '10000' }] }
    const both = read({ x402Version: 1, accepts: [v1] }, Buffer.from(JSON.stringify(v2)).toString('base64'))
    expect([both.heard, both.required.x402Version]).toEqual([2, 2])
  })
  test('no list of requirements, or another version: unreadable', () => {
    for (const body of [{ x402Version: 1 }, { x402Version: 1, accepts: [] }, { x402Version: 1, accepts: ['exact'] }, { x402Version: 1, accepts: {} }]) {
      expect(() => read(body)).toThrow(/no list of payment requirements/)
    }
    expect(() => read({}, Buffer.from(JSON.stringify({ x402Version: 3, accepts: [v1] })).toString('base64'))).toThrow(/version 3 is not spoken/)
    expect(() => read({ x402Version: 3, accepts: [v1] })).toThrow(/Invalid payment required response/)
  })
})
