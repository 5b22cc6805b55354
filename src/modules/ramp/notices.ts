/**
 * The data of the user's notifications about bank ramp records (notifications/notify.ts):
 * ids, environment, status and the amounts as the read endpoints write them (decimal text),
 * never account numbers, names or the partner's payment method ids.
 */
import type { DepositRow, PayoutRow } from './repo'

export function depositNotice(d: Pick<DepositRow, 'id' | 'environment' | 'status' | 'fiatAmount' | 'fiatCurrency'>) {
  return { depositId: d.id, environment: d.environment, status: d.status, fiatAmount: d.fiatAmount, fiatCurrency: d.fiatCurrency }
}

export function payoutNotice(p: Pick<PayoutRow, 'id' | 'environment' | 'status' | 'fiatAmount' | 'fiatCurrency' | 'cryptoCurrency' | 'cryptoAuthorizedAmount' | 'failureReason'>) {
  return {
    payoutId: p.id, environment: p.environment, status: p.status, fiatAmount: p.fiatAmount, fiatCurrency: p.fiatCurrency,
    cryptoCurrency: p.cryptoCurrency, cryptoAuthorizedAmount: p.cryptoAuthorizedAmount, failureReason: p.failureReason,
  }
}
