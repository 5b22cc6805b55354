/**
 * The README is for users and reads in five minutes: under 1,200 words, with the two commands,
 * the sandbox tour, a link per capability to its page, and the licences and limits. What it
 * left lives in docs/: the architecture and contributing text in docs/architecture.md, every
 * variable `.env.example` lists as a row of docs/configuration.md's table.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'

const readme = await Bun.file('README.md').text()
const words = (text: string) => text.split(/\s+/).filter(Boolean).length
const section = (text: string, title: string) => {
  const at = text.indexOf(`\n## ${title}\n`)
  if (at < 0) return ''
  const next = text.indexOf('\n## ', at + 1)
  return text.slice(at, next < 0 ? undefined : next)
}

describe('README.md', () => {
  test('is under 1,200 words', () => {
    expect(words(readme)).toBeLessThan(1200)
  })

  test('keeps the two commands, the sandbox tour, the licences and limits', () => {
    expect(section(readme, 'Quick start')).toContain('npm ci && npm start')
    expect(section(readme, 'Quick start')).toContain('npm test')
    const tour = section(readme, 'The sandbox tour: from zero to a bank payout')
    for (const step of ['npm run devnet', 'npm start', 'tenant create --name Acme --sandbox', 'webhooks listen', 'quickstart-ramp']) expect(tour).toContain(step)
    const limits = section(readme, 'Licences and limits')
    for (const word of ['MPC_ENGINE_NOT_CONFIGURED', '(docs/operations.md)']) expect(limits).toContain(word)
  })

  test('links every module page from its capability table, and the architecture for contributors', () => {
    const table = section(readme, 'What it does, and where to read more')
    const pages = readdirSync('docs').filter((f) => f.endsWith('.md'))
    const notCapabilities = new Set(['architecture.md', 'benchmarks.md', 'configuration.md', 'operations.md', 'reliability.md'])
    for (const page of pages.filter((p) => !notCapabilities.has(p))) expect(table, page).toContain(`(docs/${page})`)
    for (const page of pages) expect(readme, `README links docs/${page}`).toContain(`(docs/${page})`)
    expect(section(readme, 'Working on Slipway')).toContain('(docs/architecture.md)')
  })

  test('the architecture page has the folder map and the rules the README no longer carries', async () => {
    const text = await Bun.file('docs/architecture.md').text()
    for (const title of ['Where things are', 'Invariants and decisions', 'Tests']) expect(text).toContain(`\n## ${title}\n`)
    expect(section(text, 'Where things are')).toContain('modules/<domain>/')
    expect(readme).not.toContain('modules/<domain>/')
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
