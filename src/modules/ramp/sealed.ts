/**
 * Bank details the ramp keeps, sealed at rest like the other secrets (docs/bank-ramp.md):
 * a virtual IBAN (`ramp_payment_methods.iban`) and the beneficiary a payout quote names
 * (`ramp_payout_quotes.ramp_payment_method_id`, the partner's `Bank/Sepa/<IBAN>`). Nothing
 * queries by either value, so no keyed hash sits beside them. The associated data names the
 * tenant, table, row and column, so a value copied into another row does not open.
 *
 * Earlier versions wrote both in clear: such a value (it never has the sealed form) is read
 * as it is, and `slipway reseal` seals it (src/ops/reseal.ts).
 */
import type { SealedColumn } from '../../db/sealed-columns'
import { Sealer } from '../../lib/crypto'
import { ibanColumn, quoteMethodColumn } from './repo'

export const ibanAad = (tenantId: string, methodId: string) => `ramp_payment_methods:${tenantId}:${methodId}:iban`
export const quoteMethodAad = (tenantId: string, quoteId: string) => `ramp_payout_quotes:${tenantId}:${quoteId}:ramp_payment_method_id`

/** The stored text's value: opened when sealed, as it is when an earlier version wrote it in clear. */
export function openStored(sealer: Sealer, stored: string, aad: string): string {
  return Sealer.isSealed(stored) ? sealer.open(stored, aad) : stored
}

export const sealedColumns: SealedColumn[] = [ibanColumn(ibanAad), quoteMethodColumn(quoteMethodAad)]
