/**
 * A citation of a section of docs/benchmarks.md (`docs/benchmarks.md, "Signed registration"`, in a page, a comment or a
 * test) names a heading the page has. The page is rewritten as figures change; a section renamed or dropped fails here,
 * with each `file:line` and the name it cites. Whether the figure quoted beside it is there is a reader's check.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..', '..')

function files(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const full = join(dir, name)
    if (statSync(full).isDirectory()) out.push(...files(full))
    else if (/\.(ts|md)$/.test(name)) out.push(full)
  }
  return out
}

/** The page's headings, without their `#`s and backticks. */
function headings(page: string): string[] {
  return page.split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => l.replace(/^#+ /, '').replaceAll('`', '').trim())
}

/** Each cited section name with its `file:line`; a comment's line breaks (`*`, `//`) are read as spaces. */
function citations(file: string, text: string): Array<{ at: string; name: string }> {
  const out: Array<{ at: string; name: string }> = []
  const re = /benchmarks\.md\]?(?:\([^)\s]*\))?,((?:\s|\n\s*(?:\*|\/\/))+)"([^"]+)"/g
  for (const m of text.matchAll(re)) {
    const line = text.slice(0, m.index).split('\n').length
    out.push({ at: `${file}:${line}`, name: m[2]!.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' ').replaceAll('`', '').trim() })
  }
  return out
}

function missing(cited: Array<{ at: string; name: string }>, titles: string[]): string[] {
  return cited.filter((c) => !titles.some((h) => h === c.name || h.startsWith(c.name))).map((c) => `${c.at}: "${c.name}"`)
}

describe('citations of docs/benchmarks.md name its sections', () => {
  const titles = headings(readFileSync(join(ROOT, 'docs/benchmarks.md'), 'utf8'))
  const scanned = ['src', 'scripts', 'tests', 'docs'].flatMap((d) => files(join(ROOT, d))).concat(join(ROOT, 'README.md'))
    .filter((f) => f !== import.meta.path) // this file's own samples
  const cited = scanned.flatMap((f) => citations(relative(ROOT, f), readFileSync(f, 'utf8')))

  test('the scan finds the citations, in one line or across a comment\'s lines', () => {
    expect(titles).toContain('Signed registration: what is left')
    expect(cited.length).toBeGreaterThan(15)
    const sample = 'a (docs/benchmarks.md, "Signed\n  // registration") b [benchmarks.md](benchmarks.md), "Current figures"\n * docs/benchmarks.md,\n * "HTTP or WebSocket"'
    expect(citations('x.ts', sample).map((c) => c.name)).toEqual(['Signed registration', 'Current figures', 'HTTP or WebSocket'])
    expect(missing(citations('x.ts', 'docs/benchmarks.md, "No such section"'), titles)).toEqual(['x.ts:1: "No such section"'])
  })

  test('every section cited is a heading of the page (or the start of one)', () => {
    expect(missing(cited, titles)).toEqual([])
  })
})
