/**
 * The README reads in five minutes: under 2,200 words, and it keeps the quick start's two
 * commands, the bank ramp path, a configuration table and "Where things are". What left it
 * lives in docs/: every variable `.env.example` lists is a row of docs/configuration.md's table,
 * and the pages the README points to have the sections it names.
 */
import { describe, expect, test } from 'bun:test'

const readme = await Bun.file('README.md').text()
const words = (text: string) => text.split(/\s+/).filter(Boolean).length
const section = (text: string, title: string) => {
  const at = text.indexOf(`\n## ${title}\n`)
  if (at < 0) return ''
  const next = text.indexOf('\n## ', at + 1)
  return text.slice(at, next < 0 ? undefined : next)
}

describe('README.md', () => {
  test('is under 2,200 words', () => {
    expect(words(readme)).toBeLessThan(2200)
  })

  test('keeps the quick start, the bank ramp path, the configuration table and "Where things are"', () => {
    expect(section(readme, 'Quick start')).toContain('npm ci && npm start')
    expect(section(readme, 'Quick start')).toContain('npm test')
    const ramp = section(readme, 'The sandbox: from zero to a payout')
    for (const step of ['npm run devnet', 'npm start', 'tenant create --name Acme --sandbox', 'webhooks listen', 'quickstart-ramp']) expect(ramp).toContain(step)
    const config = section(readme, 'Configuration')
    expect(config).toContain('| variable | meaning | default |')
    expect(config).toContain('(docs/configuration.md)')
    expect(config).toContain('(.env.example)')
    expect(section(readme, 'Where things are')).toContain('modules/<domain>/')
  })

  test('the pages it points to have the sections it names', async () => {
    const pages: Record<string, string[]> = {
      'docs/platform.md': ['The quick start in detail', 'The bank ramp path in detail', 'The code in full', 'Invariants', 'Decisions the spec left open', 'Reliability and speed, the current figures'],
      'docs/swaps.md': ['Swaps on the devnet, step by step'],
    }
    for (const [page, titles] of Object.entries(pages)) {
      const text = await Bun.file(page).text()
      for (const title of titles) {
        expect(text, `${page}: ## ${title}`).toContain(`\n## ${title}\n`)
        expect(readme, `README names ${page}, "${title}"`).toContain(`"${title}"`)
      }
    }
  })
})

describe('docs/configuration.md', () => {
  test('its one table has a row for every variable .env.example lists', async () => {
    const doc = await Bun.file('docs/configuration.md').text()
    const tables = doc.split('\n').filter((l) => l.startsWith('| variable |'))
    expect(tables).toHaveLength(1)
    const rows = doc.split('\n').filter((l) => l.startsWith('| `'))
    const named = new Set(rows.flatMap((r) => [...r.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*(?:<[A-Z ]+>)?)`/g)].map((m) => m[1]!)))
    const example = await Bun.file('.env.example').text()
    const listed = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*(?:<[A-Z ]+>)?)=/gm)].map((m) => m[1]!)
    expect(listed.length).toBeGreaterThan(40)
    expect(listed.filter((name) => !named.has(name))).toEqual([])
  })
})
