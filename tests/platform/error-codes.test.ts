/**
 * One table of error codes (src/lib/error-codes.ts): the OpenAPI document's `ErrorCode`
 * and `ErrorDetailCode` enums are the table, every error envelope points at them, every
 * code written in src/ is in the table (in the place of the envelope the table says, and
 * with its status where the throw names one on its line), and every code of the table is
 * thrown somewhere.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { ERROR_CODES, errorCodesAt, type ErrorCodeEntry } from '@/lib/error-codes'
import { makeApp, type TestApp } from '@tests/helpers/app'

const ROOT = resolve(import.meta.dir, '../..')
const TABLE = 'src/lib/error-codes.ts'

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : []
  })
}
// the generated client types repeat the document; the table is what is checked against
const sources = files(join(ROOT, 'src'))
  .map((f) => ({ path: relative(ROOT, f), text: readFileSync(f, 'utf8') }))
  .filter((f) => f.path !== 'src/client/api-types.ts' && f.path !== TABLE)

/**
 * Codes written on a record, never an error's: an agent payment's judging reasons
 * (`reasons[].code`) and its x402 failure codes (in `failureReason`).
 */
const RECORD_CODES = new Set([
  'POLICY_MISSING', 'APPROVAL_ALWAYS', 'APPROVAL_THRESHOLD', 'APPROVAL_REJECTED',
  'X402_REQUIREMENTS_REFUSED', 'X402_REQUIREMENTS_UNREADABLE', 'X402_FAILED', 'X402_PAYMENT_NOT_REQUIRED',
])

const CLASS_STATUS: Record<string, number> = {
  BadRequestError: 400, UnauthorizedError: 401, ForbiddenError: 403, NotFoundError: 404, ConflictError: 409, ServiceUnavailableError: 503,
}
const entry = (code: string) => (ERROR_CODES as Record<string, ErrorCodeEntry>)[code]
const statusesOf = (e: ErrorCodeEntry) => (e.status === 'partner' ? 'partner' : typeof e.status === 'number' ? [e.status] : [...e.status])

let t: TestApp
let doc: { paths: Record<string, unknown>; components: { schemas: Record<string, { enum?: string[] }> } }

beforeAll(async () => {
  t = await makeApp()
  doc = await (await t.handle(new Request('http://slipway.test/v1/docs/json'))).json() as typeof doc
})
afterAll(() => t.close())

describe('error codes', () => {
  test('the document\'s ErrorCode and ErrorDetailCode enums are the table\'s codes, each once', () => {
    const code = doc.components.schemas.ErrorCode?.enum ?? []
    const details = doc.components.schemas.ErrorDetailCode?.enum ?? []
    expect([...code].sort()).toEqual(errorCodesAt('code').sort())
    expect([...details].sort()).toEqual(errorCodesAt('details').sort())
    expect(new Set([...code, ...details]).size).toBe(Object.keys(ERROR_CODES).length)
  })

  test('every error envelope of the document points its code at the enum', () => {
    const text = JSON.stringify(doc.paths)
    // every error answer is the one envelope, whose `code` names ErrorCode and `details` ErrorDetails; no code stays a bare string
    expect(text.match(/"#\/components\/schemas\/Error"/g)?.length ?? 0).toBeGreaterThan(500)
    const envelope = JSON.stringify(doc.components.schemas.Error)
    expect(envelope).toContain('"#/components/schemas/ErrorCode"')
    expect(envelope).toContain('"#/components/schemas/ErrorDetails"')
    expect(JSON.stringify(doc.components.schemas.ErrorDetails)).toContain('"#/components/schemas/ErrorDetailCode"')
    expect(text).not.toContain('"description":"optional machine-readable code","type":"string"')
    expect(text).not.toContain('x-error-code-at')
  })

  test('every `code: \'X\'` written in src/ is in the table, in its place of the envelope', () => {
    const missing: string[] = []
    const misplaced: string[] = []
    for (const f of sources) {
      f.text.split('\n').forEach((line, i) => {
        for (const m of line.matchAll(/(details:\s*\{\s*)?\bcode:\s*'([A-Z][A-Z0-9_]+)'/g)) {
          const code = m[2]!
          if (RECORD_CODES.has(code)) continue
          const e = entry(code)
          if (!e) missing.push(`${f.path}:${i + 1} ${code}`)
          else if ((m[1] ? 'details' : 'code') !== (e.at ?? 'code')) misplaced.push(`${f.path}:${i + 1} ${code} in ${m[1] ? 'details.code' : 'code'}`)
        }
      })
    }
    expect(missing).toEqual([])
    expect(misplaced).toEqual([])
  })

  test('a throw that names its status beside its code answers the table\'s status', () => {
    const wrong: string[] = []
    let seen = 0
    const check = (where: string, code: string, status: number, at: 'code' | 'details' = 'code') => {
      const e = entry(code)
      if (!e) return wrong.push(`${where} ${code}: not in the table`)
      seen++
      if ((e.at ?? 'code') !== at) wrong.push(`${where} ${code}: answered in ${at === 'code' ? 'code' : 'details.code'}`)
      const allowed = statusesOf(e)
      if (allowed === 'partner' ? status < 400 || status > 499 : !allowed.includes(status)) wrong.push(`${where} ${code}: ${status}, the table says ${e.status}`)
    }
    for (const f of sources) {
      f.text.split('\n').forEach((line, i) => {
        const where = `${f.path}:${i + 1}`
        // new ConflictError('...', { code: 'X' }) and new AppError(409, ..., { code: 'X' })
        const cls = /new (\w+Error)\((\d{3})?/.exec(line)
        const status = cls ? (cls[1] === 'AppError' ? Number(cls[2]) : CLASS_STATUS[cls[1]!]) : undefined
        if (status) {
          for (const m of line.matchAll(/(details:\s*\{\s*)?\bcode:\s*'([A-Z][A-Z0-9_]+)'/g)) {
            if (!RECORD_CODES.has(m[2]!)) check(where, m[2]!, status, m[1] ? 'details' : 'code')
          }
        }
        // the modules' helpers that take the status and the code first
        // (a RampApiError carries its code in `details.code`, as the spec has the bank ramp's)
        for (const m of line.matchAll(/(blockchainError|dappError|new RampApiError)\((\d{3}), '([A-Z][A-Z0-9_]+)'/g)) {
          check(where, m[3]!, Number(m[2]), m[1] === 'new RampApiError' ? 'details' : 'code')
        }
        // helpers that answer 400 (BadRequestError) with the code they are given
        for (const m of line.matchAll(/\b(?:bad|refuse|invalid)\((?:'([A-Z][A-Z0-9_]+)'|[^)]*, '([A-Z][A-Z0-9_]+)'\))/g)) check(where, (m[1] ?? m[2])!, 400)
      })
    }
    expect(wrong).toEqual([])
    expect(seen).toBeGreaterThan(150)
  })

  test('every code of the table is answered somewhere in src/', () => {
    const all = sources.map((f) => f.text).join('\n')
    const unused = Object.keys(ERROR_CODES).filter((c) => !all.includes(`'${c}'`))
    expect(unused).toEqual([])
  })
})
