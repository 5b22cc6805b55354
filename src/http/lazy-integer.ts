/**
 * Elysia's `t.Integer` compiles a TypeBox checker for every schema it builds, when the
 * model file is evaluated: 0.25 ms each, measured alone on a busy 2-core machine, for the
 * app's 122 integers (docs/benchmarks.md, "The compiled binary").
 * This replaces it, before any model is evaluated (src/index.ts loads it before the app, and
 * src/app.ts imports it first for runs from source), by the same
 * schema whose checker is compiled with the first value it decodes: the same union of an
 * integer string and an integer, the same decoding and the same ValidationError.
 */
import { t, ValidationError } from 'elysia'
import { Type, type IntegerOptions } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'

/** Elysia's own, kept for the test that compares the two (tests/platform/lazy-integer.test.ts). */
export const elysiaInteger = t.Integer

export function lazyInteger(property?: IntegerOptions) {
  const schema = Type.Integer(property)
  let compiler: TypeCheck<typeof schema> | undefined
  const decode = (value: unknown) => {
    const number = +(value as number)
    compiler ??= TypeCompiler.Compile(schema)
    if (!compiler.Check(number)) throw new ValidationError('property', schema, number, compiler.Errors(number) as never)
    return number
  }
  return t.Transform(t.Union([t.String({ format: 'integer', default: 0 }), Type.Integer(property)], property)).Decode(decode).Encode((value) => value)
}

;(t as { Integer: unknown }).Integer = lazyInteger
