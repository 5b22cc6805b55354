/**
 * `.env.example` against `src/config.ts`: every variable the configuration reads is listed,
 * nothing is listed that it does not read, and each value shown is the default (setting a
 * variable to the value shown configures exactly what leaving it unset does).
 */
import { describe, expect, test } from 'bun:test'
import { loadConfig } from '@/config'

const example = await Bun.file('.env.example').text()
// src/config.ts and the files it is split into (src/config/)
const configSources = ['src/config.ts', ...[...new Bun.Glob('src/config/*.ts').scanSync('.')].sort()]
const configSource = (await Promise.all(configSources.map((f) => Bun.file(f).text()))).join('\n')

/** `# NAME=value  # comment` lines; `RPC_URL_<REGISTRY ID>` stands for the RPC_URL_ prefix. */
const listed = new Map<string, string>()
for (const line of example.split('\n')) {
  const m = /^#?\s*([A-Z][A-Z0-9_]*(?:<[A-Z ]+>)?)=(\S*)/.exec(line)
  if (m) listed.set(m[1]!.replace(/<[A-Z ]+>$/, ''), m[2]!)
}

/** What loadConfig reads: each name it looks up while loading, and the names in its source (reads behind a condition). */
function namesRead(): Set<string> {
  const names = new Set<string>()
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_, key) => {
      if (typeof key === 'string') names.add(key)
      return undefined
    },
    // Object.entries(env): a scan by prefix (RPC_URL_)
    ownKeys: () => [],
  })
  loadConfig(env)
  for (const m of configSource.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|\b(?:intVar|boolVar)\(env, '([A-Z][A-Z0-9_]*)'/g)) names.add(m[1] ?? m[2]!)
  for (const m of configSource.matchAll(/startsWith\('([A-Z][A-Z0-9_]*_)'\)/g)) names.add(m[1]!)
  return names
}

describe('.env.example', () => {
  test('lists every variable src/config.ts reads, and no other', () => {
    const read = [...namesRead()].sort()
    expect(read).toContain('PORT')
    expect(read).toContain('RPC_URL_')
    expect([...listed.keys()].sort()).toEqual(read)
  })

  test('shows each default as it is: the value shown configures what leaving it unset does', () => {
    const defaults = loadConfig({})
    const shown = [...listed].filter(([name, value]) => value !== '' && !name.endsWith('_'))
    expect(shown.length).toBeGreaterThan(20)
    for (const [name, value] of shown) {
      // a default that depends on another setting, written as text: `http://localhost:$PORT`, `no-reply@<host of PUBLIC_BASE_URL>`
      if (value.includes('<')) continue
      const set = loadConfig({ [name]: value.replace('$PORT', String(defaults.port)) })
      const changed = (Object.keys(defaults) as (keyof typeof defaults)[]).filter((k) => !Bun.deepEquals(set[k], defaults[k])).map((k) => `${k}: ${JSON.stringify(set[k])}, default ${JSON.stringify(defaults[k])}`)
      expect({ name, changed }).toEqual({ name, changed: [] })
    }
  })
})
