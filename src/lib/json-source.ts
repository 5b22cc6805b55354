/**
 * The source text of a JSON body's top-level number, as the client wrote it. A parsed
 * number is a float and has already lost what an amount check needs: `100.000000001`
 * times 100 is within a rounding tolerance of a whole cent, and `100.0000000000000001`
 * parses to exactly 100. The text is read with JSON.parse's source text access (the
 * reviver's third argument, in Bun's JavaScriptCore and in V8).
 */
export function topLevelNumberText(raw: Uint8Array | undefined, key: string): string | undefined {
  if (!raw?.length) return undefined
  const seen: Array<{ holder: unknown; source: string }> = []
  let found: string | undefined
  try {
    const reviver = function (this: unknown, k: string, v: unknown, context?: { source?: string }) {
      if (k === key && typeof v === 'number' && typeof context?.source === 'string') seen.push({ holder: this, source: context.source })
      // the last call has the empty key and the root as its value: the members it holds are the top level
      if (k === '' && v && typeof v === 'object') found = seen.find((s) => s.holder === v)?.source
      return v
    }
    JSON.parse(new TextDecoder().decode(raw), reviver as (this: unknown, k: string, v: unknown) => unknown)
  } catch {
    return undefined
  }
  return found
}
