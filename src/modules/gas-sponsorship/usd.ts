/**
 * Gas in USD, exactly: decimal strings held as bigints of 10^-18 USD ("atto-USD"), never a
 * float. A cost in wei is converted at the rate recorded with the sponsorship (USD per whole
 * native coin, the price adapter's when the operation was sponsored), rounded up: a limit is
 * never passed by a rounding.
 */
const SCALE = 18n
const ONE = 10n ** SCALE

/** the pattern of a USD amount a policy takes: up to 12 integer digits and 18 decimals */
export const USD_PATTERN = '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,18})?$'
/** the same as answered: written without trailing zeros (`1.5`, never `1.50`), as every decimal amount the API answers */
export const USD_ANSWER_PATTERN = '^(0|[1-9][0-9]{0,11})(\\.[0-9]{0,17}[1-9])?$'
/** a running total in USD as answered (no bound on its integer digits), without trailing zeros */
export const USD_TOTAL_PATTERN = '^(0|[1-9][0-9]*)(\\.[0-9]{0,17}[1-9])?$'

/** a non-negative decimal string as atto-USD; digits past the 18th decimal round up */
export function parseUsd(s: string): bigint {
  const m = /^([0-9]+)(?:\.([0-9]+))?$/.exec(s)
  if (!m) throw new Error(`not a decimal amount: ${s}`)
  const frac = m[2] ?? ''
  const kept = BigInt(frac.slice(0, 18).padEnd(18, '0'))
  const roundUp = /[1-9]/.test(frac.slice(18)) ? 1n : 0n
  return BigInt(m[1]!) * ONE + kept + roundUp
}

/** atto-USD as the shortest exact decimal string (`0.0012`, `5`) */
export function formatUsd(atto: bigint): string {
  const neg = atto < 0n
  const a = neg ? -atto : atto
  const frac = (a % ONE).toString().padStart(18, '0').replace(/0+$/, '')
  return `${neg ? '-' : ''}${a / ONE}${frac ? `.${frac}` : ''}`
}

/** `wei` of a coin with `decimals` at `rateAtto` (atto-USD per whole coin), in atto-USD, rounded up */
export function weiToUsd(wei: bigint, rateAtto: bigint, decimals = 18): bigint {
  const unit = 10n ** BigInt(decimals)
  const product = wei * rateAtto
  return product / unit + (product % unit === 0n ? 0n : 1n)
}
