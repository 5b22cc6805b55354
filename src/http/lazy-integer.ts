/**
 * Elysia's `t.Integer` compiles a TypeBox checker for every schema it builds, when the
 * model file is evaluated: the app's 120-odd integers cost about a fifth of the start's
 * module loading (scripts/bench/binary.ts; docs/benchmarks.md, "The compiled binary").
 * This replaces it, before any model is evaluated (src/index.ts loads it before the app, and
 * src/app.ts imports it first for runs from source), by the same
 * schema whose checker is compiled with the first value it decodes: the same union of an
 * integer string and an integer, the same decoding and the same ValidationError.
 */
import { t, ValidationError } from 'elysia'
import { Type, type IntegerOptions } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'

function lazyInteger(property?: IntegerOptions) {
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
