/**
 * Partner events in, tenant events out. A partner webhook (`{ EventType, EventVersion,
 * Occurred, Data }`) changes Slipway's own record of a customer, deposit or transaction and
 * publishes the tenant's event in the same write transaction, so neither exists without the other.
 *
 * Each record keeps the `EventVersion` it was last changed by: an event with a version not
 * above it is a repeat or older and changes nothing and sends nothing (rule 7), except a
 * customer event that brings a region's verification Slipway does not know yet, which is
 * applied for that region and sent. Event ids are derived from the partner event and the type,
 * so a repeat that raced past the check is still delivered once.
 *
 * The user is told (notifications/notify.ts, same transaction) when what they see changes: the
 * KYC status (`kycStatus`), a new deposit or its status, a payout's status. An event that only
 * adds a region, an agreement or a sub-status reaches the tenant's webhook and not the user.
 */
import { createHash } from 'node:crypto'
import type { Tx } from '../../db/client'
import type { Deps } from '../../deps'
import type { PartnerEvent } from '../../adapters/bank-ramp/port'
import { isUuid, newId } from '../../lib/ids'
import { notify } from '../notifications'
import { publishEvent } from '../webhooks'
import * as repo from './repo'
import type { AgreementView, RampEnv, RegionView, RequestForInformation } from './schema'
import { chainOfNetwork, currencyOfCrypto } from './pairs'
import { decimalText, depositEventData, kycEventData, kycStatusOf, payoutEventData, subStatus, transactionEventData } from './views'
import { depositNotice, payoutNotice } from './notices'

const str = (v: unknown): string | null => (typeof v === 'string' && v.length ? v : null)
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {})
const time = (v: unknown): number | null => {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN
  return Number.isFinite(ms) ? ms : null
}
const isoText = (v: unknown) => {
  const ms = time(v)
  return ms === null ? null : new Date(ms).toISOString()
}

const STATUS: Record<string, string> = { Pending: 'pending', Settled: 'completed', Failed: 'failed' }
const statusOf = (v: unknown) => STATUS[String(v)] ?? 'pending'
/** A payout is `pending` until the partner reports its sell; then the sell's status. */
const PAYOUT_STATUS: Record<string, string> = { Pending: 'processing', Settled: 'completed', Failed: 'failed' }

function eventId(tenantId: string, env: RampEnv, e: PartnerEvent, recordId: string, type: string) {
  return `evt_${createHash('sha256').update(`${tenantId}|${env}|${e.EventType}|${recordId}|${e.EventVersion}|${type}`).digest('hex').slice(0, 32)}`
}

function rfiOf(v: unknown): RequestForInformation | null {
  const o = obj(v)
  const reason = str(o.Reason)
  if (!reason) return null
  return { reason, fields: arr(o.Fields).filter((f): f is string => typeof f === 'string'), requestedAt: isoText(o.RequestedAt) }
}

function regionsOf(data: Record<string, unknown>): RegionView[] {
  return arr(obj(data.Verifications).EntityVerifications).map(obj).filter((r) => str(r.Entity)).map((r) => ({
    region: String(r.Entity), status: str(r.Status) ?? 'Pending', model: str(r.Model), updatedAt: isoText(r.Modified),
  }))
}

function agreementsOf(data: Record<string, unknown>): AgreementView[] {
  return arr(data.Agreements).map(obj).filter((a) => str(a.Name)).map((a) => ({
    name: String(a.Name), version: Number.isInteger(a.Version) ? a.Version as number : 0, accepted: a.Accepted === true, acceptedAt: isoText(a.AcceptedAt),
  }))
}

/** The customer fields a partner customer record sets; regions merge by region, the newer record's entries winning. */
export function customerPatch(data: Record<string, unknown>, known: RegionView[]) {
  const incoming = regionsOf(data)
  const names = new Set(incoming.map((r) => r.region))
  return {
    known: true,
    verificationStatus: str(obj(data.Verification).Status),
    customerType: str(data.Type),
    actionsRequired: arr(data.ActionsRequired).filter((a): a is string => typeof a === 'string'),
    agreements: agreementsOf(data),
    regions: [...known.filter((r) => !names.has(r.region)), ...incoming],
  }
}

export type ApplyOutcome = 'applied' | 'stale' | 'unknown_record' | 'ignored'

export async function applyPartnerEvent(deps: Deps, tx: Tx, tenantId: string, env: RampEnv, e: PartnerEvent, now: number): Promise<ApplyOutcome> {
  const occurredAt = time(e.Occurred) ?? now
  const publish = (type: string, recordId: string, data: Record<string, unknown>, idType = type) =>
    publishEvent(tx, { tenantId, environment: env, type, data, occurredAt, id: eventId(tenantId, env, e, recordId, idType) }, now)
  const data = obj(e.Data)

  if (e.EventType === 'Customer') {
    const id = str(data.CustomerID)
    const c = id ? await repo.findCustomerById(tx, tenantId, env, id) : undefined
    if (!c) return 'unknown_record'
    if (e.EventVersion <= c.eventVersion) {
      // rule 7: an older event still brings a region's verification not yet known
      const knownRegions = new Set(c.regions.map((r) => r.region))
      const fresh = regionsOf(data).filter((r) => !knownRegions.has(r.region))
      if (!fresh.length) return 'stale'
      const regions = [...c.regions, ...fresh]
      await repo.updateCustomer(tx, tenantId, c.id, { regions, updatedAt: now })
      await publish('ramp.kyc.updated', c.id, kycEventData(env, { ...c, regions, updatedAt: now }), 'ramp.kyc.updated:regions')
      return 'applied'
    }
    const patch = { ...customerPatch(data, c.regions), eventVersion: e.EventVersion, updatedAt: now }
    await repo.updateCustomer(tx, tenantId, c.id, patch)
    await publish('ramp.kyc.updated', c.id, kycEventData(env, { ...c, ...patch }))
    const kycStatus = kycStatusOf({ ...c, ...patch })
    if (kycStatus !== kycStatusOf(c)) await notify(deps, tx, { tenantId, userId: c.userId, kind: 'ramp.kyc', data: { environment: env, kycStatus } })
    return 'applied'
  }

  if (e.EventType === 'FiatDeposit') {
    const rampId = str(data.ID)
    const rampMethod = str(data.PaymentMethodID)
    if (!rampId || !rampMethod) return 'ignored'
    const method = await repo.findMethodByRampId(tx, tenantId, env, rampMethod)
    if (!method) return 'unknown_record'
    let d = await repo.findDepositByRampId(tx, tenantId, env, rampId)
    if (d && e.EventVersion <= d.eventVersion) return 'stale'
    const statusBefore = d?.status
    const fields = {
      status: statusOf(data.Status),
      rampStatus: str(data.Status),
      rampSubStatus: subStatus(data.SubStatus),
      requestForInformation: rfiOf(data.RequestForInformation),
      refunds: arr(data.Refunds).map(obj).map((r) => ({ amount: decimalText(r.RefundedAmount) ?? '0', status: str(r.Status) ?? 'Pending', requestedAt: isoText(r.RequestedTime) })),
      paymentMethodType: str(data.PaymentMethodType) ?? method.paymentMethodType,
      paymentSystemId: str(data.PaymentSystemID),
      fiatAmount: decimalText(data.FiatAmount) ?? d?.fiatAmount ?? '0',
      fiatCurrency: str(data.FiatCurrency) ?? method.fiatCurrency,
      depositDate: time(data.Created),
      eventVersion: e.EventVersion,
      updatedAt: now,
    }
    if (d) {
      await repo.updateDeposit(tx, tenantId, d.id, fields)
      d = { ...d, ...fields }
    } else {
      d = { id: newId(), tenantId, environment: env, userId: method.userId, paymentMethodId: method.id, rampDepositId: rampId, createdAt: now, ...fields }
      await repo.insertDeposit(tx, tenantId, d)
      await repo.fillDepositByRampId(tx, tenantId, env, rampId, d.id)
    }
    await publish('ramp.deposit.updated', rampId, depositEventData(d))
    if (d.status !== statusBefore) await notify(deps, tx, { tenantId, userId: d.userId, kind: 'ramp.deposit', data: depositNotice(d) })
    return 'applied'
  }

  if (e.EventType === 'Transaction') {
    const rampId = str(data.ID)
    const customerId = str(data.CustomerID)
    if (!rampId || !customerId) return 'ignored'
    const customer = await repo.findCustomerById(tx, tenantId, env, customerId)
    if (!customer) return 'unknown_record'
    let x = await repo.findTransactionByRampId(tx, tenantId, env, rampId)
    if (x && e.EventVersion <= x.eventVersion) return 'stale'
    const fiat = obj(data.FiatPayment)
    const orchestration = obj(data.Orchestration)
    // rule 3: Slipway's own ids for the partner's rule and execution (the partner's are kept, never sent)
    const ownId = async (kind: 'rule' | 'rule_execution', rampOwn: string | null) => (rampOwn ? repo.orchestrationId(tx, tenantId, env, kind, rampOwn, newId(), now) : null)
    const ruleExecutionId = await ownId('rule_execution', str(orchestration.RuleExecutionID))
    const rampDepositId = str(fiat.FiatDepositID)
    const direction = data.Direction === 'Out' ? 'out' : 'in'
    // rule 5: a delivery names no deposit; the conversion of the same execution does
    let depositId: string | null = x?.depositId ?? null
    let depositRampId: string | null = rampDepositId ?? x?.rampDepositId ?? null
    if (rampDepositId) depositId = (await repo.findDepositByRampId(tx, tenantId, env, rampDepositId))?.id ?? null
    else if (!depositId && ruleExecutionId) {
      const found = await repo.depositOfExecution(tx, tenantId, env, ruleExecutionId)
      depositId = found?.depositId ?? null
      depositRampId = found?.rampDepositId ?? depositRampId
    }
    const adjustment = obj(data.AdjustmentFor)
    const adjustedRampId = str(adjustment.AdjustedTransactionID)
    const reverses = adjustedRampId ? (await repo.findTransactionByRampId(tx, tenantId, env, adjustedRampId))?.id ?? null : null
    // a sell names Slipway's payout in ExternalID (rule 6)
    const externalId = str(data.ExternalID)
    const payout = (externalId && isUuid(externalId) ? await repo.findPayoutById(tx, tenantId, env, externalId) : undefined)
      ?? await repo.findPayoutByRampTransaction(tx, tenantId, env, rampId)
    const ownPayout = payout && payout.userId === customer.userId ? payout : undefined
    const fields = {
      transactionType: ownPayout ? 'payout' : rampDepositId ? 'payin_conversion' : direction === 'out' ? 'payin_delivery' : 'payin_conversion',
      direction,
      status: statusOf(data.Status),
      rampStatus: str(data.Status),
      rampSubStatus: subStatus(data.SubStatus),
      cryptoAmount: decimalText(data.Amount),
      cryptoCurrency: currencyOfCrypto(str(data.CryptoCurrency) ?? undefined),
      fiatAmount: decimalText(fiat.Amount),
      fiatCurrency: str(fiat.FiatCurrency),
      network: chainOfNetwork(str(data.Network) ?? undefined),
      destinationAddress: str(data.DestinationAddress),
      transactionHash: str(data.TransactionHash),
      depositId,
      rampDepositId: depositRampId,
      requestForInformation: rfiOf(data.RequestForInformation),
      refunds: arr(data.Refunds).map(obj).map((r) => ({
        amount: decimalText(r.RefundedAmount) ?? '0',
        currency: str(r.Currency),
        status: str(r.Status) ?? 'Pending',
        requestedAt: isoText(r.RequestTime),
      })),
      ruleId: await ownId('rule', str(orchestration.RuleID)),
      ruleExecutionId,
      reversesTransactionId: reverses,
      adjustment: adjustedRampId ? { reason: str(adjustment.Reason) } : null,
      breakdown: arr(data.Breakdown).map(obj).filter((b) => str(b.Type)).map((b) => ({ type: String(b.Type), amount: decimalText(b.Amount) ?? '0' })),
      networkFee: decimalText(data.NetworkFee),
      fiatFeeAmount: decimalText(fiat.FeeAmount),
      fiatRate: decimalText(fiat.Rate),
      paymentSystemId: str(fiat.PaymentSystemID),
      eventVersion: e.EventVersion,
      updatedAt: now,
    }
    if (x) {
      await repo.updateTransaction(tx, tenantId, x.id, fields)
      x = { ...x, ...fields }
    } else {
      x = { id: newId(), tenantId, environment: env, userId: customer.userId, rampTransactionId: rampId, createdAt: now, ...fields }
      await repo.insertTransaction(tx, tenantId, x)
    }
    if (depositId && ruleExecutionId) await repo.fillExecutionDeposit(tx, tenantId, env, ruleExecutionId, depositId, depositRampId)
    await publish('ramp.transaction.updated', rampId, transactionEventData(x))
    if (ownPayout) {
      const status = PAYOUT_STATUS[String(data.Status)] ?? 'processing'
      const changed = status !== ownPayout.status
      const patch = { status, rampTransactionId: rampId, updatedAt: now, ...(status === 'failed' && changed ? { failureReason: 'The bank ramp reported the payout failed' } : {}) }
      await repo.updatePayout(tx, tenantId, ownPayout.id, patch)
      // rule 6: the payout's own event only when its status changed
      if (changed) {
        await publish('ramp.payout.updated', rampId, payoutEventData({ ...ownPayout, ...patch }))
        await notify(deps, tx, { tenantId, userId: ownPayout.userId, kind: 'ramp.payout', data: payoutNotice({ ...ownPayout, ...patch }) })
      }
    }
    return 'applied'
  }
  return 'ignored'
}
