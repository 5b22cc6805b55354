/**
 * Every integer schema of the app is src/http/integer.ts's `integer(...)`. Elysia's `t.Integer`
 * compiles a TypeBox checker as each schema is built, while the models load: 0.25 ms each, for the
 * app's 122 integers, all of it in the start. No source file may call it again.
 */
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const SRC = join(ROOT, 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(p) ? [p] : []
  })
}

/** The source without its comments, so a comment may still name `t.Integer`. */
const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
/** t.Integer, t['Integer'], or `Integer` destructured from Elysia's t. */
const USE = /\bt\s*(\.\s*Integer\b|\[\s*['"`]Integer['"`]\s*\])|\{[^}]*\bInteger\b[^}]*\}\s*=\s*t\b/

function uses(name: string, source: string): string[] {
  return code(source).split('\n').flatMap((line, i) => (USE.test(line) ? [`${name}:${i + 1}: ${line.trim()}`] : []))
}

test('no source file uses Elysia\'s t.Integer: integers come from src/http/integer.ts', () => {
  const sources = files(SRC)
  expect(sources.length).toBeGreaterThan(100)
  expect(sources.flatMap((f) => uses(relative(ROOT, f), readFileSync(f, 'utf8')))).toEqual([])
})

test('the check finds each way of reaching t.Integer, and not a comment', () => {
  const sample = [
    "import { t } from 'elysia'",
    'export const A = t.Integer({ minimum: 0 })',
    "export const B = t['Integer']()",
    'const { Integer } = t',
    '// t.Integer in a comment is fine',
    '/** and t.Integer in a block comment */',
    'export const C = integer({ minimum: 0 }) // not t.Integer',
  ].join('\n')
  expect(uses('x.ts', sample)).toEqual(['x.ts:2: export const A = t.Integer({ minimum: 0 })', "x.ts:3: export const B = t['Integer']()", 'x.ts:4: const { Integer } = t'])
})
