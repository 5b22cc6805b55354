/**
 * Exact money arithmetic for portfolio values, in bigints: an amount in a token's smallest
 * unit times a price in decimal text, summed at 18 decimals of the currency, and rounded to
 * the cent once, at the end (half away from zero). No float takes part until an answer's
 * spec-fixed JSON numbers are written from the rounded text.
 */

const SCALE = 18
const ONE = 10n ** BigInt(SCALE)

/** A price's decimal text as an integer at 18 decimals (`3012.5` → 3012500000000000000000n). */
export function scaled(decimal: string): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(decimal)
  if (!m) throw new Error(`not decimal text: ${decimal}`)
  return BigInt(m[1]!) * ONE + BigInt((m[2] ?? '').slice(0, SCALE).padEnd(SCALE, '0'))
}

/** The value of `amount` smallest units of a token with `decimals`, at `price` per whole token: 18 decimals of the currency. */
export function valueOf(amount: bigint, decimals: number, price: string): bigint {
  return (amount * scaled(price)) / 10n ** BigInt(decimals)
}

/** A value at 18 decimals rounded to cents (half away from zero). */
export function toCents(value: bigint): bigint {
  const unit = 10n ** BigInt(SCALE - 2)
  const half = unit / 2n
  return value >= 0n ? (value + half) / unit : -((-value + half) / unit)
}

/** Cents as decimal text with 2 decimals (`123456n` → `1234.56`, `-5n` → `-0.05`). */
export function centsText(cents: bigint): string {
  const sign = cents < 0n ? '-' : ''
  const abs = cents < 0n ? -cents : cents
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/** Decimal text with 2 decimals as the answers write it, without trailing zeros (`1234.50` → `1234.5`, `3000.00` → `3000`). */
export const plainCents = (text: string) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text)

/** Decimal text with 2 decimals back to cents. */
export function centsOf(text: string): bigint {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(text)
  if (!m) throw new Error(`not a 2-decimal amount: ${text}`)
  const c = BigInt(m[2]!) * 100n + BigInt(m[3]!)
  return m[1] ? -c : c
}

/** The spec's JSON number for a cents amount: the 2-decimal text read as a number (exact to the cent below 2^53 cents). */
export const centsNumber = (cents: bigint) => Number(centsText(cents))

/** `change` over `base` in percent with 2 decimals (half away from zero); null when there is no base to compare with. */
export function percentOf(change: bigint, base: bigint): number | null {
  if (base <= 0n) return null
  const units = change * 1_000_000n / base // 4 decimals of a percent
  const rounded = units >= 0n ? (units + 50n) / 100n : -((-units + 50n) / 100n)
  return Number(centsText(rounded))
}
