/**
 * The README and docs/ stand on their own: they cite no file outside the repository (the
 * platform's spec files, another checkout, issue numbers) and every relative markdown link
 * names a file or folder of the repository. A failure lists each `file:line` with what it cites.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..', '..')
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]

/** What a doc must not cite, and why. */
const OUTSIDE: Array<[RegExp, string]> = [
  [/platform-api\.md/, 'the platform API spec, a file outside the repository'],
  [/DECISIONS\.md/, 'the spec\'s decisions file, outside the repository'],
  [/spec\/agent-payments\.md/, 'the agent payments spec, outside the repository'],
  [/\/work\//, 'a path on the machine the project was built on'],
  [/\.\.\/shared/, 'a folder beside the checkout'],
  [/\bissues? #\d+/i, 'an issue number'],
  [/\bissue \d+/i, 'an issue number'],
]

type Hit = { at: string; why: string; text: string }

function scan(): Hit[] {
  const hits: Hit[] = []
  for (const file of FILES) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
    lines.forEach((line, i) => {
      const at = `${file}:${i + 1}`
      for (const [re, why] of OUTSIDE) {
        const m = re.exec(line)
        if (m) hits.push({ at, why, text: m[0] })
      }
      for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue
        const path = decodeURIComponent(target.split('#')[0]!)
        const full = resolve(ROOT, dirname(file), path)
        if (!full.startsWith(ROOT + '/') && full !== ROOT) hits.push({ at, why: 'a link out of the repository', text: target })
        else if (!existsSync(full)) hits.push({ at, why: `a link to a missing file (${relative(ROOT, full)})`, text: target })
      }
    })
  }
  return hits
}

describe('the README and docs/ cite nothing outside the repository', () => {
  test('the scan reads the README and every page of docs/', () => {
    expect(FILES).toContain('README.md')
    expect(FILES.length).toBeGreaterThan(10)
  })

  test('the patterns catch what they are meant to', () => {
    const caught = (s: string) => OUTSIDE.some(([re]) => re.test(s))
    for (const s of ['see spec/DECISIONS.md', 'platform-api.md, Events', '/work/shared/spec/agent-payments.md', '../shared/x', 'issue 32', 'Issue 33, item 3', 'issues #4', 'issue #12']) expect(caught(s), s).toBe(true)
    for (const s of ['docs/agent-payments.md', 'an issue with the node', 'issued 3 tokens']) expect(caught(s), s).toBe(false)
  })

  test('no file:line cites a spec file, another checkout or an issue number, and every relative link resolves', () => {
    const hits = scan().map((h) => `${h.at}: ${h.why}: ${h.text}`)
    expect(hits).toEqual([])
  })
})
