/**
 * Money in the OpenAPI document: every property of an answer whose name says it is money is a
 * JSON string with a pattern or a description of its format, never a JSON number, so no amount
 * goes through a float on either side (docs/bank-ramp.md, Amounts). Request bodies are not swept:
 * simulate-deposit's `amount` is a JSON number because the spec fixes it so.
 *
 * What looks like money: a property name with one of MONEY_WORDS among its camelCase words
 * (`fiatAmount`, `networkFee`, `exchangeRate`, `rawBalance`, `simulateDepositMax`, `limits.min`).
 * `tokenTtlMinutes` (words token, ttl, minutes) and `decimals` are not money by this rule.
 *
 * Decimal text is written without trailing zeros (`"100"`, `"250.5"`, never `"250.50"`), the spec's
 * Events rule 4 applied to every answer: every money string whose pattern takes a fraction, or whose
 * description says it is decimal, must have a pattern that refuses trailing zeros. The exceptions are
 * named in DECIMAL_EXCEPTIONS, each with the spec's words that fix it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'

const MONEY_WORDS = new Set(['amount', 'amounts', 'fee', 'fees', 'rate', 'rates', 'price', 'prices', 'balance', 'balances', 'value', 'cost', 'costs', 'total', 'min', 'max', 'eur', 'usd', 'wei', 'lamports'])
/** Names the rule matches that are not money, and why; they may stay integers. */
const NOT_MONEY: Record<string, string> = {
  total: 'number of items in a list (pagination)',
  totalPages: 'number of pages in a list (pagination)',
  maxExecutionsPerDay: 'agent payments policy: a count of executions (the spec names the field)',
  maxOccurrences: 'agent payments mandate recurrence: a count of payments (the spec names the field)',
  maxTimeoutSeconds: 'x402 payment requirement: seconds an authorization stays valid (the x402 protocol names the field)',
}
/** Answer fields the spec fixes as JSON numbers (`operationId path`), and where it says so. */
const SPEC_NUMBERS: Record<string, string> = {
  'portfolioPerformance .totalEur': 'spec, Amount formats: "Portfolio performance `changeEur`, `totalEur`, `totalUsd` | JSON numbers."',
  'portfolioPerformance .totalUsd': 'spec, Amount formats: "Portfolio performance `changeEur`, `totalEur`, `totalUsd` | JSON numbers."',
  'portfolioPerformance .changeEur': 'spec, Amount formats: "Portfolio performance `changeEur`, `totalEur`, `totalUsd` | JSON numbers."',
}

/** Decimal money the spec writes otherwise (`operationId .path`, or `operationId*` for a whole group), and the spec's words. */
const DECIMAL_EXCEPTIONS: Record<string, string> = {
  'rampPayoutInitiate .fiatAmount': 'platform API spec, Amount formats: "Payout initiate response `fiatAmount`, `exchangeRate` | Strings; `fiatAmount` has 2 decimals." (`"100.00"`; the payout read back answers `"100"`)',
  'agentPayments*': 'agent payments spec: "`amount` is a decimal string in the currency\'s units (`"12.50"`)"; amounts answer as the merchant, the mandate or the policy wrote them (a mandate\'s content hash covers them as written)',
}
const isException = (key: string) => Object.keys(DECIMAL_EXCEPTIONS).some((k) => (k.endsWith('*') ? key.startsWith(k.slice(0, -1)) : key === k))
const keyOf = (f: { where: string }) => `${f.where.split(' ')[0]} ${f.where.split(' ').pop()}`

type Schema = {
  $ref?: string
  type?: string | string[]
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  items?: Schema
  properties?: Record<string, Schema>
  additionalProperties?: Schema | boolean
  pattern?: string
  description?: string
}
type Doc = {
  paths: Record<string, Record<string, { operationId: string; responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>
  components?: { schemas?: Record<string, Schema> }
}
type Found = { where: string; name: string; types: string[]; documented: boolean; pattern?: string; description?: string }

const words = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[\s_]+/)
const looksLikeMoney = (name: string) => words(name).some((w) => MONEY_WORDS.has(w))

let t: TestApp
let doc: Doc
let found: Found[] = []

/** Every money-named property of every answer, with its types (through `$ref` and unions). */
function sweep(): Found[] {
  const out: Found[] = []
  const deref = (s: Schema): Schema => (s.$ref ? deref(doc.components!.schemas![s.$ref.split('/').pop()!]!) : s)
  const variants = (s: Schema): Schema[] => {
    const d = deref(s)
    const alts = d.anyOf ?? d.oneOf
    return alts ? alts.flatMap(variants) : [d]
  }
  const walk = (s: Schema | undefined, where: string, seen: Set<Schema>) => {
    if (!s || typeof s !== 'object') return
    const d = deref(s)
    if (seen.has(d)) return
    const inner = new Set(seen).add(d)
    for (const alt of [...(d.anyOf ?? []), ...(d.oneOf ?? []), ...(d.allOf ?? [])]) walk(alt, where, inner)
    if (d.items) walk(d.items, `${where}[]`, inner)
    if (d.additionalProperties && typeof d.additionalProperties === 'object') walk(d.additionalProperties, `${where}{}`, inner)
    for (const [name, p] of Object.entries(d.properties ?? {})) {
      const at = `${where}.${name}`
      if (looksLikeMoney(name)) {
        const vs = variants(p)
        const types = [...new Set(vs.flatMap((v) => (Array.isArray(v.type) ? v.type : v.type ? [v.type] : [])))]
        const strings = vs.filter((v) => v.type === 'string' || (Array.isArray(v.type) && v.type.includes('string')))
        const documented = strings.length > 0 && strings.every((v) => v.pattern || v.description || deref(p).description)
        out.push({ where: at, name, types, documented, pattern: strings[0]?.pattern, description: strings[0]?.description ?? deref(p).description })
      }
      walk(p, at, inner)
    }
  }
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        for (const c of Object.values(res.content ?? {})) walk(c.schema, `${op.operationId} ${method.toUpperCase()} ${path} ${status} `, new Set())
      }
    }
  }
  return out
}

beforeAll(async () => {
  t = await makeApp()
  doc = await (await t.handle(new Request('http://slipway.test/v1/docs/json'))).json() as Doc
  found = sweep()
})
afterAll(() => t.close())

describe('money in the answers of the OpenAPI document', () => {
  test('the rule reads names by their words', () => {
    for (const name of ['fiatAmount', 'cryptoAmount', 'exchangeRate', 'fiatFeeAmount', 'networkFee', 'totalFee', 'rawBalance', 'simulateDepositMax', 'min', 'maxFeePerGas', 'value', 'changeEur', 'totalUsd']) expect(looksLikeMoney(name), name).toBe(true)
    for (const name of ['decimals', 'nativeTokenDecimals', 'tokenTtlMinutes', 'limit', 'offset', 'walletCount', 'statusCode', 'estimatedGas', 'processingSeconds']) expect(looksLikeMoney(name), name).toBe(false)
  })

  test('the sweep reaches the bank ramp\'s lists, payouts, balances and fee quotes', () => {
    const names = new Set(found.map((f) => f.where.replace(/^\S+ /, '')))
    for (const at of [
      'GET /v1/ramp/bank/payin/deposits 200 .deposits[].fiatAmount',
      'GET /v1/ramp/bank/payin/transactions 200 .transactions[].cryptoAmount',
      'GET /v1/ramp/bank/payin/transactions 200 .transactions[].fiatAmount',
      'GET /v1/ramp/bank/payin/transactions 200 .transactions[].exchangeRate',
      'GET /v1/ramp/bank/payin/transactions 200 .transactions[].breakdown[].amount',
      'GET /v1/ramp/bank/settings 200 .limits.simulateDepositMax',
      'GET /v1/ramp/bank/payout/transactions 200 .payouts[].fiatAmount',
      'GET /v1/wallets/{id}/balance 200 .tokens[].balance',
      'POST /v1/transactions/quote 200 .estimatedFee',
      'GET /v1/portfolio/performance 200 .points[].totalEur',
    ]) expect(names.has(at), at).toBe(true)
    expect(found.length).toBeGreaterThanOrEqual(60)
  })

  test('no money is a JSON number: every amount, fee, rate, balance and limit is a string', () => {
    const numbers = found.filter((f) => f.types.some((ty) => ty === 'number' || ty === 'integer'))
      .filter((f) => !(NOT_MONEY[f.name] && f.types.every((ty) => ty === 'integer' || ty === 'null')))
      .filter((f) => !SPEC_NUMBERS[`${f.where.split(' ')[0]} ${f.where.split(' ').pop()}`])
      .map((f) => `${f.where}: ${f.types.join(' | ')}`)
    expect(numbers).toEqual([])
  })

  test('every SPEC_NUMBERS entry names an answer field the sweep finds, and it is a number', () => {
    for (const key of Object.keys(SPEC_NUMBERS)) {
      const f = found.find((x) => `${x.where.split(' ')[0]} ${x.where.split(' ').pop()}` === key)
      expect(f?.types, key).toEqual(['number'])
    }
  })

  test('every money string says its format, with a pattern or a description', () => {
    const vague = found.filter((f) => f.types.includes('string') && !f.documented).map((f) => f.where)
    expect(vague).toEqual([])
  })

  test('the pay-in amounts are decimal text without trailing zeros, by their pattern', () => {
    const pattern = found.find((f) => f.where.endsWith('.deposits[].fiatAmount'))?.pattern
    expect(pattern).toBeString()
    const re = new RegExp(pattern!)
    for (const ok of ['250.5', '267.8292', '0.25', '0', '15000', '1.08']) expect(re.test(ok), ok).toBe(true)
    for (const bad of ['250.50', '250.', '.5', '007', '1e3', '-1', '1,5', '']) expect(re.test(bad), bad).toBe(false)
  })

  test('every decimal money string refuses trailing zeros by its pattern, but for the named exceptions', () => {
    const takesFraction = (f: Found) => !!f.pattern && new RegExp(f.pattern).test('1.5')
    const saysDecimal = (f: Found) => !f.pattern && /decimal/i.test(f.description ?? '') && !/integer/i.test(f.description ?? '')
    const decimals = found.filter((f) => f.types.includes('string') && (takesFraction(f) || saysDecimal(f)))
    expect(decimals.length).toBeGreaterThanOrEqual(40)
    const wrong = decimals.filter((f) => !isException(keyOf(f))).flatMap((f) => {
      if (!f.pattern) return [`${f.where}: decimal text with no pattern (${f.description})`]
      const re = new RegExp(f.pattern)
      const refused = ['0', '1.5', '100', '0.25', '15000'].filter((ok) => !re.test(ok))
      const taken = ['1.50', '100.00', '1.', '100.0'].filter((bad) => re.test(bad))
      return refused.length || taken.length ? [`${f.where}: pattern ${f.pattern} ${refused.length ? `refuses ${refused.join(', ')}` : ''}${taken.length ? ` takes ${taken.join(', ')}` : ''}`] : []
    })
    expect(wrong).toEqual([])
  })

  test('every DECIMAL_EXCEPTIONS entry names decimal money the sweep finds', () => {
    for (const k of Object.keys(DECIMAL_EXCEPTIONS)) expect(found.some((f) => isException(keyOf(f)) && (k.endsWith('*') ? keyOf(f).startsWith(k.slice(0, -1)) : keyOf(f) === k)), k).toBe(true)
    // the payout initiate answer keeps 2 decimals (the spec); the same payout read back does not
    const initiate = found.find((f) => keyOf(f) === 'rampPayoutInitiate .fiatAmount')!
    expect(new RegExp(initiate.pattern!).test('100.00')).toBe(true)
    for (const op of ['rampPayoutTransactions', 'rampPayoutRead', 'rampPayoutQuote', 'rampPayoutQuoteRead', 'rampPayoutFromWallet']) {
      for (const field of ['fiatAmount', 'totalFee']) {
        const f = found.find((x) => x.where.startsWith(`${op} `) && x.where.endsWith(`.${field}`))
        expect(f, `${op} ${field}`).toBeDefined()
        expect(new RegExp(f!.pattern!).test("100.00"), `${op} ${field}`).toBe(false)
      }
    }
  })
})
