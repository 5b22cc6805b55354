/**
 * SPDX licence expressions (`MIT`, `(MIT OR CC0-1.0)`, `Apache-2.0 AND BSD-3-Clause`,
 * `GPL-2.0-only WITH Classpath-exception-2.0`), read by a small parser of our own: the
 * grammar is four tokens, and the gate must not depend on more than it reads.
 * An OR is satisfied by one allowed branch, an AND needs every branch; an id with `+`
 * ("or any later version") counts as its base id; `X WITH Y` is allowed only as the whole
 * `X WITH Y` (an exception changes what X means).
 */
export type Expression =
  | { id: string }
  | { op: 'AND' | 'OR'; left: Expression; right: Expression }

const TOKEN = /\s*(\(|\)|[A-Za-z0-9.:+-]+)/y

function tokenize(text: string): string[] | null {
  const tokens: string[] = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex
    const m = TOKEN.exec(text)
    if (!m) return text.slice(at).trim() === '' ? tokens : null
    tokens.push(m[1]!)
  }
  return tokens
}

/** The expression, or null when the text is not one (`SEE LICENSE IN …`, `UNLICENSED`, `MIT/X11`...). */
export function parseSpdx(text: string): Expression | null {
  const tokens = tokenize(text)
  if (!tokens || tokens.length === 0) return null
  let i = 0
  const peek = () => tokens[i]?.toUpperCase()
  const operand = (): Expression | null => {
    if (tokens[i] === '(') {
      i++
      const inner = or()
      if (!inner || tokens[i] !== ')') return null
      i++
      return inner
    }
    const id = tokens[i]
    if (!id || id === ')' || ['AND', 'OR', 'WITH'].includes(id.toUpperCase())) return null
    i++
    if (peek() !== 'WITH') return { id }
    i++
    const exception = tokens[i]
    if (!exception || exception === '(' || exception === ')') return null
    i++
    return { id: `${id} WITH ${exception}` }
  }
  const chain = (op: 'AND' | 'OR', next: () => Expression | null) => (): Expression | null => {
    let left = next()
    while (left && peek() === op) {
      i++
      const right = next()
      if (!right) return null
      left = { op, left, right }
    }
    return left
  }
  const and = chain('AND', operand)
  const or = chain('OR', and)
  const expr = or()
  return expr && i === tokens.length ? expr : null
}

/**
 * The ids under which the expression can be used with `allowed`, or null when it cannot:
 * for an OR the first allowed branch, for an AND every branch.
 */
export function usableUnder(expr: Expression, allowed: (id: string) => boolean): string[] | null {
  if ('id' in expr) return allowed(expr.id) || (expr.id.endsWith('+') && allowed(expr.id.slice(0, -1))) ? [expr.id] : null
  const left = usableUnder(expr.left, allowed)
  if (expr.op === 'OR') return left ?? usableUnder(expr.right, allowed)
  const right = left && usableUnder(expr.right, allowed)
  return left && right ? [...left, ...right] : null
}
