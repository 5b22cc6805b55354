/**
 * Prose for the OpenAPI document, written as a wrapped template literal so that no code line
 * carries a paragraph: each line break in the source, with the indentation around it, reads as
 * one space, and the break after the opening backtick is dropped. Text interpolated with `${}`
 * is kept as it is, so a paragraph break (`\n\n`) belongs in a joined array, not in the literal.
 *
 *   description: prose`
 *     The first sentence,
 *     and the rest of it.`
 */
export function prose(strings: TemplateStringsArray, ...values: unknown[]): string {
  const last = strings.length - 1
  return strings.reduce((out, chunk, i) => {
    let part = chunk
    if (i === 0) part = part.replace(/^[ \t]*\n[ \t]*/, '')
    if (i === last) part = part.replace(/[ \t]*\n[ \t]*$/, '')
    part = part.replace(/[ \t]*\n[ \t]*/g, ' ')
    return out + part + (i < last ? String(values[i]) : '')
  }, '')
}
