/**
 * Decimal amounts (strings of up to 27 integer and 18 fractional digits) summed exactly in SQL:
 * each row's amount as integer limbs, its whole part (`w`) and its fraction, as the two 9-digit
 * halves (`h`, `l`) or whole (`f`, units of 1e-18), so a sum is `w * 1e18 + h * 1e9 + l` units of
 * 1e-18. `wl` is the whole part's length: a sum is only taken where every whole part has at most
 * 15 digits (a sum of limbs then stays within 64 bits for any number of rows the database holds
 * in a window). The same arithmetic, on one row, is the triggers' (drizzle/0033_ap_spend_totals.sql).
 */
import { sql } from 'drizzle-orm'

export const MAX_WHOLE_DIGITS = 15

const frac = `CASE WHEN instr(amount, '.') = 0 THEN '' ELSE substr(amount, instr(amount, '.') + 1) END || '000000000000000000'`

/** The select list of one row's limbs (`w`, `h`, `l`, `f`, `wl`) from its `amount` column. */
export const AMOUNT_LIMBS = sql.raw(`
  CAST(CASE WHEN instr(amount, '.') = 0 THEN amount ELSE substr(amount, 1, instr(amount, '.') - 1) END AS INTEGER) AS w,
  CAST(substr(${frac}, 1, 9) AS INTEGER) AS h,
  CAST(substr(${frac}, 10, 9) AS INTEGER) AS l,
  CAST(substr(${frac}, 1, 18) AS INTEGER) AS f,
  CASE WHEN instr(amount, '.') = 0 THEN length(amount) ELSE instr(amount, '.') - 1 END AS wl`)

/** Summed limbs (as SQLite answers them: numbers, or text for exactness) as units of 1e-18. */
export const unitsOfLimbs = (w: unknown, h: unknown, l: unknown) =>
  BigInt(String(w ?? 0)) * 1_000_000_000_000_000_000n + BigInt(String(h ?? 0)) * 1_000_000_000n + BigInt(String(l ?? 0))
