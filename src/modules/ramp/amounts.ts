/** Decimal text and integer units of the bank ramp's amounts. */
import { RampApiError } from '../../lib/errors'

/** Decimal text to integer units, rounded up past `places` (an authorized maximum never shrinks). */
export function unitsOf(dec: string, places: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(dec)
  if (!m) throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent an amount that is not a decimal')
  const frac = m[2] ?? ''
  const kept = BigInt(m[1]!) * 10n ** BigInt(places) + BigInt((frac + '0'.repeat(places)).slice(0, places) || '0')
  return /[1-9]/.test(frac.slice(places)) ? kept + 1n : kept
}
export function decimalOf(units: bigint, places: number): string {
  const s = units.toString().padStart(places + 1, '0')
  return places ? `${s.slice(0, -places)}.${s.slice(-places)}` : s
}

/** Exact decimal text without trailing zeros (`"100.50"` → `"100.5"`), or null when it is not a decimal. */
export function decimalText(v: unknown): string | null {
  if (typeof v !== 'string' || !/^\d{1,30}(\.\d{1,30})?$/.test(v)) return null
  let [i, f = ''] = v.split('.')
  i = i!.replace(/^0+(?=\d)/, '')
  f = f.replace(/0+$/, '')
  return f ? `${i}.${f}` : i
}
/** A stored decimal (`"100.00"`) as the read routes answer it (`"100"`): decimalText, or the text unchanged when it is not a decimal. */
export const plainDecimal = (dec: string): string => decimalText(dec) ?? dec
