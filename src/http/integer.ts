/**
 * The app's integer schema: every model builds its integers with `integer(...)`, never with
 * Elysia's `t.Integer` (tests/architecture/integer.test.ts). It is the same schema as Elysia's,
 * the same union of an integer string and an integer, documented the same, decoding a query's
 * or a path's `"5"` to 5, and failing with the same ValidationError; but its TypeBox checker is
 * compiled with the first value it decodes, not when the model file is evaluated. Elysia's
 * compiles one per schema as it is built: 0.25 ms each (measured alone on a busy 2-core
 * machine) for each of the app's integers (122 then), all of it in the start (docs/benchmarks.md, "The compiled binary").
 * tests/platform/integer.test.ts compares the two, so an Elysia upgrade that changes its own fails there.
 */
import { t, ValidationError } from 'elysia'
import { Type, type IntegerOptions, type TInteger } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'

/** An integer, or in a query or a path a string holding one; typed as Elysia types its `t.Integer`. */
export function integer(property?: IntegerOptions): TInteger {
  const schema = Type.Integer(property)
  let compiler: TypeCheck<typeof schema> | undefined
  const decode = (value: unknown) => {
    const number = +(value as number)
    compiler ??= TypeCompiler.Compile(schema)
    if (!compiler.Check(number)) throw new ValidationError('property', schema, number, compiler.Errors(number) as never)
    return number
  }
  const union = t.Union([t.String({ format: 'integer', default: 0 }), Type.Integer(property)], property)
  return t.Transform(union).Decode(decode).Encode((value) => value) as unknown as TInteger
}
