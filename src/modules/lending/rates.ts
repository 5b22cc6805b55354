/**
 * Aave's supply rate as answered: `currentLiquidityRate` is a yearly rate in ray (1e27),
 * compounded every second. `apr` is that rate as exact decimal text; `apy` is
 * (1 + apr / 31536000)^31536000 − 1, as Aave's own interfaces show it, computed in ray with
 * integer arithmetic (rounded down) and written with 18 decimals at most.
 */
const RAY = 10n ** 27n
const SECONDS_PER_YEAR = 31_536_000n

/** Exact decimal text of `value / 10^scale`, without trailing zeros. */
export function decimalText(value: bigint, scale: number): string {
  const neg = value < 0n
  const abs = neg ? -value : value
  const unit = 10n ** BigInt(scale)
  const whole = abs / unit
  const frac = (abs % unit).toString().padStart(scale, '0').replace(/0+$/, '')
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`
}

const rayMul = (a: bigint, b: bigint) => (a * b + RAY / 2n) / RAY

function rayPow(base: bigint, exp: bigint): bigint {
  let result = RAY
  let b = base
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = rayMul(result, b)
    b = rayMul(b, b)
  }
  return result
}

export function aprText(liquidityRateRay: bigint): string {
  return decimalText(liquidityRateRay, 27)
}

export function apyText(liquidityRateRay: bigint): string {
  const perSecond = RAY + liquidityRateRay / SECONDS_PER_YEAR
  const apyRay = rayPow(perSecond, SECONDS_PER_YEAR) - RAY
  // 18 decimals are plenty for a rate; the last digits of the ray arithmetic are rounding
  return decimalText(apyRay / 10n ** 9n, 18)
}
