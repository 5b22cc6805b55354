/**
 * src/http/lazy-integer.ts replaces Elysia's `t.Integer` by one that compiles its checker on the
 * first value it decodes. The two must stay the same schema with the same answers (an Elysia
 * upgrade that changes its `t.Integer` fails here), and the app's models must get the lazy one.
 */
import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { Kind, TransformKind } from '@sinclair/typebox'
import { createApp } from '@/app'
import { elysiaInteger, lazyInteger } from '@/http/lazy-integer'
import { Offset } from '@/http/schemas'

const OPTIONS = [undefined, { minimum: 1, maximum: 100, default: 20 }, { minimum: 0, maximum: 1_000_000, default: 0, description: '0 to 1,000,000' }, { examples: [2] }]
const INPUTS = ['5', '0', '-1', '100', '101', '2.5', 'abc', '', '1e3', ' 7', '0x10']

const shape = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema, (_, v) => (typeof v === 'function' ? 'fn' : v)))

describe('the lazy t.Integer', () => {
  test('is the same schema as Elysia\'s', () => {
    for (const options of OPTIONS) {
      const lazy = lazyInteger(options) as unknown as Record<string | symbol, unknown>
      const eager = elysiaInteger(options) as unknown as Record<string | symbol, unknown>
      expect(shape(lazy)).toEqual(shape(eager))
      expect(lazy[Kind]).toBe(eager[Kind])
      expect(typeof lazy[TransformKind]).toBe(typeof eager[TransformKind])
    }
  })

  test('answers as Elysia\'s does, in a query and in a body', async () => {
    const app = (integer: typeof lazyInteger) => new Elysia()
      .get('/q', ({ query }) => query, { query: t.Object({ n: t.Optional(integer({ minimum: 1, maximum: 100 })) }) })
      .post('/b', ({ body }) => body, { body: t.Object({ n: integer({ minimum: 0 }) }) })
    const lazy = app(lazyInteger)
    const eager = app(elysiaInteger as unknown as typeof lazyInteger)
    const answer = async (a: ReturnType<typeof app>, r: () => Request) => {
      const res = await a.handle(r())
      return [res.status, await res.text()]
    }
    for (const n of INPUTS) {
      const q = () => new Request(`http://localhost/q?n=${encodeURIComponent(n)}`)
      expect(await answer(lazy, q)).toEqual(await answer(eager, q))
      for (const body of [`{"n":${JSON.stringify(n)}}`, `{"n":${Number(n)}}`]) {
        const b = () => new Request('http://localhost/b', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        expect(await answer(lazy, b)).toEqual(await answer(eager, b))
      }
    }
  })

  test('is the one the app\'s models were built with', () => {
    expect(typeof createApp).toBe('function')
    expect(t.Integer as unknown).toBe(lazyInteger)
    // the shared pagination schema decodes with the lazy checker
    const decode = String((Offset as unknown as Record<symbol, { Decode: unknown }>)[TransformKind]!.Decode)
    expect(decode).toContain('compiler ??=')
  })
})
