/**
 * Proven addresses: an external address (not one of Slipway's wallets) the user shows they
 * control by signing a challenge, so the bank ramp may deliver to it. EVM addresses sign the
 * message with EIP-191 (`personal_sign`), Solana addresses with ed25519 over its UTF-8 bytes;
 * the check is pure cryptography (the wallets module's `verifyOwnership`), no chain is called.
 *
 * A challenge is single use: verifying spends it whatever the outcome, so a signature cannot
 * be guessed at over many tries, and a replay finds it spent (409). It expires after 10 minutes.
 * The proof (message and signature) is registered with the partner before Slipway records it.
 */
import { BadRequestError, ConflictError, NotFoundError, RampApiError, refusedField } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { randomToken } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Ctx } from '../../context'
import { chainByFamily } from '../tokens'
import { wallets } from '../wallets'
import type * as M from './model'
import { offered, partnerNetwork } from './pairs'
import * as repo from './repo'
import { access, customerNotFound, envOf, partnerClient, type RampAccess } from './access'

export const ADDRESS_CHALLENGE_TTL_MS = 10 * 60_000

function addressView(r: repo.ProvenAddressRow) {
  return { id: r.id, environment: r.environment, chain: r.chain, address: r.address, provenAt: iso(r.provenAt) }
}

async function knownCustomer(ctx: Ctx, a: RampAccess) {
  const c = await repo.findCustomer(ctx.deps.database.db, a.tenantId, a.env, a.userId)
  if (!c) throw customerNotFound(a.env)
  return c
}

export async function addressChallenge(ctx: Ctx, input: M.AddressChallengeBody) {
  const { deps } = ctx
  const a = await access(ctx, envOf(input.isTestnet), null)
  await knownCustomer(ctx, a)
  const chain = chainByFamily(input.chain)
  const networks = offered(a.settings, a.env).flatMap((o) => o.networks)
  if (!chain || !networks.includes(chain.id)) {
    throw refusedField(`The bank ramp takes addresses on ${networks.join(', ') || 'no chain'} for this tenant`, '/chain', { available: networks })
  }
  const address = await wallets.normalizeAddress(chain.family, input.address)
  if (!address) throw refusedField(`address is not a valid ${chain.id} address`, '/address')
  const now = deps.clock.now()
  const expiresAt = now + ADDRESS_CHALLENGE_TTL_MS
  const message = [
    'Slipway bank ramp: I control this address and ask that it may receive my funds.',
    `Chain: ${chain.id}`,
    `Address: ${address}`,
    `Environment: ${a.env}`,
    `Nonce: ${randomToken(16)}`,
    `Issued At: ${iso(now)}`,
    `Expiration Time: ${iso(expiresAt)}`,
  ].join('\n')
  const id = newId()
  await deps.database.write((tx) => repo.insertChallenge(tx, a.tenantId, {
    id, environment: a.env, userId: a.userId, chain: chain.id, address, message, expiresAt, usedAt: null, createdAt: now,
  }))
  return { challengeId: id, environment: a.env, chain: chain.id, address, message, expiresAt: iso(expiresAt) }
}

export async function verifyAddress(ctx: Ctx, input: M.AddressVerifyBody) {
  const { deps } = ctx
  const a = await access(ctx, envOf(input.isTestnet), null)
  const customer = await knownCustomer(ctx, a)
  const c = await repo.findChallenge(deps.database.db, a.tenantId, a.env, a.userId, input.challengeId)
  if (!c) throw new NotFoundError('Challenge not found')
  if (c.usedAt !== null) throw new ConflictError('This challenge was already used; ask for a new one', { details: { code: 'ADDRESS_CHALLENGE_USED' } })
  if (c.expiresAt <= deps.clock.now()) throw new BadRequestError('This challenge has expired; ask for a new one', { details: { code: 'ADDRESS_CHALLENGE_EXPIRED' } })
  const chain = chainByFamily(c.chain)!
  const valid = await wallets.verifyOwnership(chain.family, c.address, c.message, input.signature)
  if (!valid) {
    // spent by a wrong signature too: one guess per challenge
    await deps.database.write((tx) => repo.spendChallenge(tx, a.tenantId, c.id, deps.clock.now()))
    throw new BadRequestError('The signature is not the address owner\'s over the challenge message', { details: { code: 'ADDRESS_SIGNATURE_INVALID' } })
  }
  const network = partnerNetwork(c.chain, a.env)
  if (!network) throw new BadRequestError(`The bank ramp does not take ${c.chain} addresses`)
  const registered = await partnerClient(deps, a.tenantId, a.env, a.ramp).registerAddress(customer.id, {
    Network: network, Address: c.address, Message: c.message, Signature: input.signature, SignatureScheme: chain.family === 'evm' ? 'EIP191' : 'Ed25519',
  })
  if (typeof registered?.AddressID !== 'string' || !registered.AddressID) throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent no address id')
  const now = deps.clock.now()
  const row = await deps.database.write(async (tx) => {
    // the spend is what makes the challenge single use when two verifications race
    if (!(await repo.spendChallenge(tx, a.tenantId, c.id, now))) return null
    return repo.upsertProvenAddress(tx, a.tenantId, { id: newId(), environment: a.env, userId: a.userId, chain: c.chain, address: c.address, rampAddressId: registered.AddressID, provenAt: now })
  })
  if (!row) throw new ConflictError('This challenge was already used; ask for a new one', { details: { code: 'ADDRESS_CHALLENGE_USED' } })
  return addressView(row)
}

export async function listAddresses(ctx: Ctx, input: M.EnvQuery) {
  const a = await access(ctx, envOf(input.isTestnet), null)
  return { addresses: (await repo.listProvenAddresses(ctx.deps.database.db, a.tenantId, a.env, a.userId)).map(addressView) }
}

/** Removes the proof at the partner, then Slipway's record. */
export async function deleteAddress(ctx: Ctx, id: string, input: M.EnvQuery) {
  const { deps } = ctx
  const a = await access(ctx, envOf(input.isTestnet), null)
  const row = await repo.findProvenAddress(deps.database.db, a.tenantId, a.env, a.userId, id)
  if (!row) throw new NotFoundError('Address not found')
  const customer = await knownCustomer(ctx, a)
  try {
    await partnerClient(deps, a.tenantId, a.env, a.ramp).removeAddress(customer.id, row.rampAddressId)
  } catch (err) {
    // already gone at the partner: remove Slipway's record too
    if (!(err instanceof RampApiError && err.status === 404)) throw err
  }
  await deps.database.write((tx) => repo.deleteProvenAddress(tx, a.tenantId, row.id))
  return { deleted: true as const, id: row.id }
}
