/**
 * The words of each notification, in English and Italian, rendered from its kind and data
 * when the inbox is read or a push is sent (never stored). Amounts are shown exactly, from
 * the integer text and decimals the data carries (no float, no rounding); Italian writes
 * the decimal comma. Failure reasons stay in `data.failureReason` (English, technical): the
 * body says what happened in the user's language.
 */
import type { Locale } from '../mail'
import type { NotificationKind } from './notify'

export type { Locale }
export const LOCALES = ['en', 'it'] as const satisfies readonly Locale[]

export interface RenderedNotification {
  title: string
  body: string
}

type Data = Record<string, string | null | undefined>

/** `1230000000000000000` with 18 decimals → `1.23`; null when either is missing or malformed. */
export function unitsToDecimal(units: string | null | undefined, decimals: string | null | undefined): string | null {
  if (!units || !/^\d{1,80}$/.test(units) || !decimals || !/^\d{1,2}$/.test(decimals)) return null
  const places = Number(decimals)
  const s = units.replace(/^0+(?=\d)/, '').padStart(places + 1, '0')
  const whole = places ? s.slice(0, -places) : s
  const fraction = places ? s.slice(-places).replace(/0+$/, '') : ''
  return fraction ? `${whole}.${fraction}` : whole
}

const localNumber = (text: string, locale: Locale) => (locale === 'it' ? text.replace('.', ',') : text)

/** `1.23 ETH` (`1,23 ETH` in Italian); null without an amount. */
function money(amount: string | null | undefined, currency: string | null | undefined, locale: Locale): string | null {
  if (!amount || !/^\d+(\.\d+)?$/.test(amount)) return null
  return `${localNumber(amount, locale)}${currency ? ` ${currency}` : ''}`
}

/** `0x742d…f44e`: enough to recognise an address, short enough for a phone's notification. */
const shortAddress = (a: string | null | undefined) => (!a ? null : a.length > 14 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a)

const pick = (locale: Locale, en: RenderedNotification, it: RenderedNotification) => (locale === 'it' ? it : en)

function transaction(kind: 'transaction.confirmed' | 'transaction.failed', d: Data, locale: Locale): RenderedNotification {
  const amount = money(unitsToDecimal(d.amount, d.decimals), d.symbol, locale)
  const ok = kind === 'transaction.confirmed'
  if (d.type === 'swap') {
    const from = amount ?? d.symbol ?? ''
    const to = d.toSymbol ? { en: ` to ${d.toSymbol}`, it: ` in ${d.toSymbol}` } : { en: '', it: '' }
    return ok
      ? pick(locale, { title: 'Swap confirmed', body: `Your swap of ${from}${to.en} is confirmed.` }, { title: 'Scambio confermato', body: `Il tuo scambio di ${from}${to.it} è confermato.` })
      : pick(
        locale,
        { title: 'Swap failed', body: `Your swap of ${from}${to.en} did not go through.` },
        { title: 'Scambio non riuscito', body: `Il tuo scambio di ${from}${to.it} non è andato a buon fine.` },
      )
  }
  const what = { en: amount ? `Your send of ${amount}` : 'Your send', it: amount ? `Il tuo invio di ${amount}` : 'Il tuo invio' }
  const to = shortAddress(d.toAddress)
  const where = { en: `${to ? ` to ${to}` : ''}`, it: `${to ? ` a ${to}` : ''}` }
  const on = d.network ? { en: ` on ${d.network}`, it: ` su ${d.network}` } : { en: '', it: '' }
  return ok
    ? pick(locale, { title: 'Transaction confirmed', body: `${what.en}${where.en} is confirmed${on.en}.` }, { title: 'Transazione confermata', body: `${what.it}${where.it} è confermato${on.it}.` })
    : pick(
      locale,
      { title: 'Transaction failed', body: `${what.en}${where.en} did not go through${on.en}.` },
      { title: 'Transazione non riuscita', body: `${what.it}${where.it} non è andato a buon fine${on.it}.` },
    )
}

function incoming(d: Data, locale: Locale): RenderedNotification {
  const amount = money(unitsToDecimal(d.amount, d.decimals), d.symbol, locale) ?? d.symbol ?? ''
  const from = shortAddress(d.fromAddress)
  const on = d.network ? { en: ` on ${d.network}`, it: ` su ${d.network}` } : { en: '', it: '' }
  return pick(locale,
    { title: 'Payment received', body: `You received ${amount}${from ? ` from ${from}` : ''}${on.en}.` },
    { title: 'Pagamento ricevuto', body: `Hai ricevuto ${amount}${from ? ` da ${from}` : ''}${on.it}.` })
}

function kyc(d: Data, locale: Locale): RenderedNotification {
  switch (d.kycStatus) {
    case 'approved':
      return pick(locale,
        { title: 'Verification approved', body: 'Your identity is verified: you can now use bank transfers.' },
        { title: 'Verifica approvata', body: 'La tua identità è verificata: ora puoi usare i bonifici.' })
    case 'rejected':
      return pick(locale,
        { title: 'Verification declined', body: 'Your identity verification was declined. Contact support for help.' },
        { title: 'Verifica rifiutata', body: 'La verifica della tua identità è stata rifiutata. Contatta l\'assistenza.' })
    case 'action_required':
      return pick(locale,
        { title: 'Verification needs your action', body: 'Your identity verification needs more information from you.' },
        { title: 'Verifica: serve una tua azione', body: 'Per la verifica della tua identità servono altre informazioni.' })
    default:
      return pick(locale,
        { title: 'Verification in review', body: 'Your identity verification is being reviewed.' },
        { title: 'Verifica in corso', body: 'La verifica della tua identità è in corso.' })
  }
}

function deposit(d: Data, locale: Locale): RenderedNotification {
  const amount = money(d.fiatAmount, d.fiatCurrency, locale)
  const of = { en: amount ? ` of ${amount}` : '', it: amount ? ` di ${amount}` : '' }
  switch (d.status) {
    case 'completed':
      return pick(locale,
        { title: 'Deposit completed', body: `Your bank deposit${of.en} is complete.` },
        { title: 'Deposito completato', body: `Il tuo deposito${of.it} tramite bonifico è completato.` })
    case 'failed':
      return pick(locale,
        { title: 'Deposit failed', body: `Your bank deposit${of.en} could not be completed.` },
        { title: 'Deposito non riuscito', body: `Il tuo deposito${of.it} tramite bonifico non è stato completato.` })
    default:
      return pick(locale,
        { title: 'Bank transfer received', body: `We received your bank transfer${of.en}; it is being processed.` },
        { title: 'Bonifico ricevuto', body: `Abbiamo ricevuto il tuo bonifico${of.it}: è in lavorazione.` })
  }
}

function payout(d: Data, locale: Locale): RenderedNotification {
  const amount = money(d.fiatAmount, d.fiatCurrency, locale)
  const of = { en: amount ? ` of ${amount}` : '', it: amount ? ` di ${amount}` : '' }
  switch (d.status) {
    case 'processing':
      return pick(locale,
        { title: 'Payout on its way', body: `Your payout${of.en} is on its way to your bank.` },
        { title: 'Prelievo in corso', body: `Il tuo prelievo${of.it} è in arrivo sul tuo conto.` })
    case 'completed':
      return pick(locale,
        { title: 'Payout completed', body: `Your payout${of.en} was sent to your bank.` },
        { title: 'Prelievo completato', body: `Il tuo prelievo${of.it} è stato inviato al tuo conto.` })
    case 'failed':
      return pick(locale,
        { title: 'Payout failed', body: `Your payout${of.en} could not be completed.` },
        { title: 'Prelievo non riuscito', body: `Il tuo prelievo${of.it} non è stato completato.` })
    default:
      return pick(locale,
        { title: 'Payout started', body: `Your payout${of.en} has started.` },
        { title: 'Prelievo avviato', body: `Il tuo prelievo${of.it} è stato avviato.` })
  }
}

function cardOnramp(d: Data, locale: Locale): RenderedNotification {
  const amount = money(d.destinationAmount, d.destinationCurrency, locale)
  const what = {
    en: amount ? `Your purchase of ${amount}` : `Your ${d.destinationCurrency ? `${d.destinationCurrency} ` : ''}purchase`,
    it: amount ? `Il tuo acquisto di ${amount}` : `Il tuo acquisto${d.destinationCurrency ? ` di ${d.destinationCurrency}` : ''}`,
  }
  switch (d.status) {
    case 'fulfillment_processing':
      return pick(locale,
        { title: 'Card purchase processing', body: `${what.en} is being delivered to your wallet.` },
        { title: 'Acquisto con carta in corso', body: `${what.it} è in consegna al tuo wallet.` })
    case 'fulfillment_complete':
      return pick(locale,
        { title: 'Card purchase complete', body: `${what.en} arrived in your wallet.` },
        { title: 'Acquisto con carta completato', body: `${what.it} è arrivato nel tuo wallet.` })
    case 'failed':
      return pick(locale,
        { title: 'Card purchase failed', body: `${what.en} could not be completed.` },
        { title: 'Acquisto con carta non riuscito', body: `${what.it} non è stato completato.` })
    case 'rejected':
      return pick(locale,
        { title: 'Card purchase declined', body: `${what.en} was declined.` },
        { title: 'Acquisto con carta rifiutato', body: `${what.it} è stato rifiutato.` })
    default:
      return pick(locale,
        { title: 'Card purchase updated', body: `${what.en} was updated.` },
        { title: 'Acquisto con carta aggiornato', body: `${what.it} è stato aggiornato.` })
  }
}

/** The title and body of a notification in `locale`. A kind this version does not know still renders (a generic text). */
export function renderNotification(kind: NotificationKind | string, data: Data, locale: Locale): RenderedNotification {
  switch (kind) {
    case 'transaction.confirmed':
    case 'transaction.failed':
      return transaction(kind, data, locale)
    case 'transfer.incoming':
      return incoming(data, locale)
    case 'ramp.kyc':
      return kyc(data, locale)
    case 'ramp.deposit':
      return deposit(data, locale)
    case 'ramp.payout':
      return payout(data, locale)
    case 'card_onramp.updated':
      return cardOnramp(data, locale)
    default:
      return pick(locale, { title: 'Update', body: 'Something changed in your account.' }, { title: 'Aggiornamento', body: 'C\'è una novità nel tuo account.' })
  }
}

/** The stored language of a user (null reads as English). */
export const localeOf = (stored: string | null | undefined): Locale => (stored === 'it' ? 'it' : 'en')
