/**
 * The partner's protocol as the simulator speaks it: answer shapes (the partner's error
 * `{ Type, Detail, Instance, Extensions }`), amount arithmetic in integer units, the sell
 * channels it offers and the SEPA form they ask for. Pure: no simulator state here.
 */
import { randomUUID } from 'node:crypto'
import { isValidIban } from './iban'

export const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
export const partnerError = (status: number, type: string, detail: string, request?: Record<string, unknown>) =>
  json({ Type: type, Detail: detail, Instance: randomUUID(), ...(request ? { Extensions: { Request: request } } : {}) }, status)
export const html = (body: string, status = 200) => new Response(
  `<!doctype html><html><head><meta charset="utf-8"><title>Bank ramp sandbox</title></head><body>${body}</body></html>`,
  { status, headers: { 'content-type': 'text/html; charset=utf-8' } },
)
export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
export const DECIMAL = /^\d{1,12}(\.\d{1,2})?$/
export const DECIMAL6 = /^\d{1,12}(\.\d{1,6})?$/

/** Amount arithmetic in integer units: cents for fiat, 10^-6 for the stablecoin. */
export function toUnits(dec: string, places: number): bigint {
  const [i, f = ''] = dec.split('.')
  return BigInt(i!) * 10n ** BigInt(places) + BigInt((f + '0'.repeat(places)).slice(0, places) || '0')
}
export function fromUnits(v: bigint, places: number): string {
  const s = v.toString().padStart(places + 1, '0')
  return places ? `${s.slice(0, -places)}.${s.slice(-places)}` : s
}

/** Rounds a non-negative decimal up to `places` decimals, as text. */
export function ceilUnits(num: bigint, den: bigint): bigint {
  return (num + den - 1n) / den
}

/** The sell channels the simulator offers: SEPA bank transfers in EUR, and a card channel whose form is never given out. */
const SEPA_COUNTRIES = ['AT', 'BE', 'DE', 'ES', 'FR', 'IE', 'IT', 'NL', 'PT']
const channelId = (n: number) => `0b5e1c9a-7d3f-4e21-9c4a-${String(n).padStart(12, '0')}`
export const CHANNELS = [
  ...SEPA_COUNTRIES.map((country, i) => ({ ID: channelId(i + 1), PaymentMethodCategory: 'Bank', PaymentMethodType: 'BankSepa', FiatCurrency: 'EUR', Country: country })),
  { ID: channelId(900), PaymentMethodCategory: 'Card', PaymentMethodType: 'TokenizedCard', FiatCurrency: 'EUR', Country: 'DE' },
]
export type Channel = (typeof CHANNELS)[number]
export const PAYOUT_MIN = 1n * 100n
export const PAYOUT_MAX = 15000n * 100n
/** EVM and Solana sandbox deposit addresses when none is configured */
export const SANDBOX_DEPOSIT_EVM = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001'
export const SANDBOX_DEPOSIT_SOLANA = '5a1eSandboxDeposit1111111111111111111111111'

/** The SEPA form: draft-07, as the partner's FormSchema. */
export const SEPA_FIELDS: Record<string, Record<string, unknown>> = {
  AccountHolderName: { type: 'string', title: 'Account holder name', minLength: 1, maxLength: 140 },
  IBAN: { type: 'string', title: 'IBAN', pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$' },
  BIC: { type: 'string', title: 'BIC', pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$' },
}
export const SEPA_REQUIRED = ['AccountHolderName', 'IBAN']

export function sepaSchema(fields: string[], required: string[]) {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    title: 'SEPA bank account',
    properties: Object.fromEntries(fields.map((f) => [f, SEPA_FIELDS[f]])),
    required,
    additionalProperties: false,
  }
}

/** The reasons a filled SEPA form is refused, by field (empty: accepted). */
export function sepaFormErrors(form: unknown, lacking: string[]): Record<string, string> {
  const errors: Record<string, string> = {}
  if (!form || typeof form !== 'object' || Array.isArray(form)) return { Form: 'required' }
  const f = form as Record<string, unknown>
  for (const k of Object.keys(f)) if (!SEPA_FIELDS[k]) errors[k] = 'not a field of this form'
  for (const k of lacking) if (f[k] === undefined) errors[k] = 'required'
  for (const [k, v] of Object.entries(f)) {
    const def = SEPA_FIELDS[k]
    if (!def) continue
    if (typeof v !== 'string') errors[k] = 'must be a string'
    else if (def.pattern && !new RegExp(def.pattern as string).test(v)) errors[k] = 'wrong format'
    else if (def.minLength && v.length < (def.minLength as number)) errors[k] = 'too short'
    else if (def.maxLength && v.length > (def.maxLength as number)) errors[k] = 'too long'
  }
  if (typeof f.IBAN === 'string' && !errors.IBAN && !isValidIban(f.IBAN)) errors.IBAN = 'check digits do not match'
  return errors
}

export async function readJson(request: Request): Promise<any> {
  try {
    return await request.json()
  } catch {
    return undefined
  }
}
