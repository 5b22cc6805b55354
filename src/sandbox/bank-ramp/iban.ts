/**
 * IBANs with valid ISO 13616 check digits (ISO 7064 MOD 97-10): move the country code and
 * "00" to the end, letters become 10..35, and the check digits are 98 minus the remainder.
 */
function mod97(digits: string): number {
  let rem = 0
  for (const ch of digits) rem = (rem * 10 + Number(ch)) % 97
  return rem
}

const expand = (s: string) => s.toUpperCase().replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55))

export function ibanWithCheckDigits(country: string, bban: string): string {
  const check = 98 - mod97(expand(bban + country + '00'))
  return `${country}${String(check).padStart(2, '0')}${bban}`
}

export function isValidIban(iban: string): boolean {
  const s = iban.replace(/\s+/g, '').toUpperCase()
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false
  return mod97(expand(s.slice(4) + s.slice(0, 4))) === 1
}

/** A German-format IBAN (bank code 8 digits, account 10 digits) from a sequence number. */
export function sandboxIban(bankCode: string, account: number): string {
  return ibanWithCheckDigits('DE', bankCode.padStart(8, '0') + String(account).padStart(10, '0'))
}
