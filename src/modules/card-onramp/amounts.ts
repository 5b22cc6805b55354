/** Amounts of the card onramp as Slipway answers them. */
/** The provider's decimal text as Slipway answers amounts: no leading nor trailing zeros (`"048.50"` → `"48.5"`). */
export const dec = (v: unknown) => (typeof v === 'string' && /^\d{1,18}(\.\d{1,18})?$/.test(v) ? v.replace(/^0+(?=\d)/, '').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') : null)
