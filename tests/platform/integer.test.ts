/**
 * src/http/integer.ts is the app's integer schema: Elysia's `t.Integer`, but with its checker
 * compiled on the first value it decodes. The two must stay the same schema with the same answers
 * (an Elysia upgrade that changes its `t.Integer` fails here), and the shared schemas must be ours.
 */
import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { Kind, TransformKind } from '@sinclair/typebox'
import { integer } from '@/http/integer'
import { Limit, Offset, PageNumber } from '@/http/schemas'

const OPTIONS = [undefined, { minimum: 1, maximum: 100, default: 20 }, { minimum: 0, maximum: 1_000_000, default: 0, description: '0 to 1,000,000' }, { examples: [2] }]
const INPUTS = ['5', '0', '-1', '100', '101', '2.5', 'abc', '', '1e3', ' 7', '0x10']

const shape = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema, (_, v) => (typeof v === 'function' ? 'fn' : v)))
const decoder = (schema: unknown) => String((schema as Record<symbol, { Decode: unknown }>)[TransformKind]!.Decode)

describe('the app\'s integer', () => {
  test('is the same schema as Elysia\'s t.Integer', () => {
    for (const options of OPTIONS) {
      const ours = integer(options) as unknown as Record<string | symbol, unknown>
      const elysia = t.Integer(options) as unknown as Record<string | symbol, unknown>
      expect(shape(ours)).toEqual(shape(elysia))
      expect(ours[Kind]).toBe(elysia[Kind])
      expect(typeof ours[TransformKind]).toBe(typeof elysia[TransformKind])
    }
  })

  test('answers as Elysia\'s does, in a query, a path and a body', async () => {
    const app = (int: typeof integer) => new Elysia()
      .get('/q', ({ query }) => query, { query: t.Object({ n: t.Optional(int({ minimum: 1, maximum: 100 })) }) })
      .get('/p/:n', ({ params }) => params, { params: t.Object({ n: int({ minimum: 0, maximum: 1000 }) }) })
      .post('/b', ({ body }) => body, { body: t.Object({ n: int({ minimum: 0 }) }) })
    const ours = app(integer)
    const elysia = app(t.Integer)
    const answer = async (a: ReturnType<typeof app>, r: () => Request) => {
      const res = await a.handle(r())
      return [res.status, await res.text()]
    }
    let decoded = 0
    for (const n of INPUTS) {
      const q = () => new Request(`http://localhost/q?n=${encodeURIComponent(n)}`)
      const mine = await answer(ours, q)
      expect(mine).toEqual(await answer(elysia, q))
      if (mine[0] === 200) decoded++
      if (n !== '') {
        const p = () => new Request(`http://localhost/p/${encodeURIComponent(n)}`)
        expect(await answer(ours, p)).toEqual(await answer(elysia, p))
      }
      for (const body of [`{"n":${JSON.stringify(n)}}`, `{"n":${Number(n)}}`]) {
        const b = () => new Request('http://localhost/b', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        expect(await answer(ours, b)).toEqual(await answer(elysia, b))
      }
    }
    // both answers were compared, not only refusals: a query's "5" decodes to 5
    expect(decoded).toBeGreaterThan(0)
    expect(await (await ours.handle(new Request('http://localhost/q?n=5'))).json()).toEqual({ n: 5 })
  })

  test('compiles its checker on the first value it decodes, not when built', () => {
    for (const schema of [integer(), Limit(), Offset, PageNumber]) expect(decoder(schema)).toContain('compiler ??=')
    expect(decoder(t.Integer())).not.toContain('compiler ??=')
  })
})
