/**
 * The structure rules of the README's "Where things are", checked on the source text so a
 * change that breaks one fails CI: no import cycle among src/ files, wiring only in
 * src/deps.ts and src/services.ts, each module's tables touched only by its own repo, chain
 * clients built only in the chain adapter, nothing below HTTP importing it, and no source line
 * over 200 characters.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { is } from 'drizzle-orm'
import { SQLiteTable } from 'drizzle-orm/sqlite-core'

const ROOT = resolve(import.meta.dir, '../..')
const SRC = join(ROOT, 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : []
  })
}

const sources = files(SRC)
const text = new Map(sources.map((f) => [f, readFileSync(f, 'utf8')]))
const rel = (f: string) => relative(ROOT, f)

/** Every module a file names: static imports and re-exports (type-only included) and dynamic `import()`. */
function specifiers(source: string): Array<{ spec: string; names: string[]; typeOnly: boolean }> {
  const out: Array<{ spec: string; names: string[]; typeOnly: boolean }> = []
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?([^'"]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    const names = [...(m[3]!.match(/\{([^}]*)\}/)?.[1] ?? '').split(',')].map((n) => n.trim()).filter(Boolean)
    const allTypes = names.length > 0 && names.every((n) => n.startsWith('type '))
    out.push({ spec: m[4]!, names: names.map((n) => n.replace(/^type\s+/, '').split(/\s+as\s+/)[0]!), typeOnly: !!m[2] || allTypes })
  }
  for (const m of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ spec: m[1]!, names: [], typeOnly: false })
  return out
}

function resolveSpec(from: string, spec: string): string | null {
  if (!spec.startsWith('.') && !spec.startsWith('@/')) return null
  const base = spec.startsWith('@/') ? join(SRC, spec.slice(2)) : resolve(dirname(from), spec)
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  return null
}

describe('structure', () => {
  test('no import cycle among src/ files (type-only and dynamic imports count)', () => {
    const edges = new Map(sources.map((f) => [f, specifiers(text.get(f)!).map((s) => resolveSpec(f, s.spec)).filter((p): p is string => !!p && p.endsWith('.ts'))]))
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const stack: string[] = []
    const visit = (f: string) => {
      state.set(f, 'open')
      stack.push(f)
      for (const next of edges.get(f) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].map(rel).join(' -> '))
        else if (!state.has(next)) visit(next)
      }
      stack.pop()
      state.set(f, 'done')
    }
    for (const f of sources) if (!state.has(f)) visit(f)
    expect(cycles).toEqual([])
  })

  test('nothing assigns into deps outside src/deps.ts', () => {
    const offenders = sources
      .filter((f) => rel(f) !== 'src/deps.ts')
      .flatMap((f) => text.get(f)!.split('\n').map((line, i) => ({ line, at: `${rel(f)}:${i + 1}` })))
      .filter(({ line }) => /\bdeps(\.[A-Za-z]+)+\s*=[^=]/.test(line))
      .map(({ at }) => at)
    expect(offenders).toEqual([])
  })

  test('a module\'s tables are read and written only by its own repo.ts (its repo-<part>.ts files, or its repo/ folder)', async () => {
    // The tables each schema file defines, found by importing it.
    const tableFiles = sources.filter((f) => /\/schema\.ts$/.test(f))
    const tablesOf = new Map<string, Set<string>>()
    for (const f of tableFiles) {
      const mod = (await import(f)) as Record<string, unknown>
      tablesOf.set(f, new Set(Object.entries(mod).filter(([, v]) => is(v, SQLiteTable)).map(([k]) => k)))
    }
    // Who may name a table as a value: the repo of its module; for the core tables in
    // src/db/schema.ts, the repo of the module that owns each, and the layers below modules.
    const coreOwners: Record<string, string[]> = {
      // src/db/callers.ts: the credential reads of the auth step, which carry the tenant into the context;
      // src/db/placement/mirror.ts: a placed tenant's copy of its own row in its own database (docs/scaling.md)
      tenants: ['src/modules/tenants/repo.ts', 'src/modules/users/repo.ts', 'src/db/callers.ts', 'src/db/placement/mirror.ts'],
      users: ['src/modules/users/repo.ts', 'src/db/callers.ts'],
      refreshTokens: ['src/modules/auth/repo.ts'],
      userIdentities: ['src/modules/social/repo.ts'],
      activityLog: ['src/modules/activity/repo.ts'],
      signatureReplays: ['src/http/replay.ts'],
      idempotencyKeys: ['src/http/idempotency.ts'],
      appMeta: ['src/deps.ts'],
    }
    const offenders: string[] = []
    for (const f of sources) {
      for (const s of specifiers(text.get(f)!)) {
        if (s.typeOnly) continue
        const target = resolveSpec(f, s.spec)
        const tables = target && tablesOf.get(target)
        if (!tables) continue
        for (const name of s.names.filter((n) => tables.has(n))) {
          const allowed = rel(target!) === 'src/db/schema.ts'
            ? coreOwners[name] ?? []
            : rel(target!) === 'src/jobs/schema.ts'
              ? ['src/jobs/outbox.ts', 'src/jobs/runner.ts']
              : [rel(join(dirname(target!), 'repo.ts')), rel(join(dirname(target!), 'schema.ts'))]
          // a repo past about 250 lines is split by concern into repo-<part>.ts files beside it, which repo.ts hands on
          const repoPart = dirname(f) === dirname(target!) && /^repo-[a-z0-9-]+\.ts$/.test(basename(f))
          // a module's repo may be a folder of files by concern (src/modules/<name>/repo/*.ts)
          const inRepoFolder = rel(f).startsWith(rel(join(dirname(target!), 'repo')) + '/') && !/^src\/(db|jobs)\//.test(rel(target!))
          // schema files may reference core tables for foreign keys
          if (allowed.includes(rel(f)) || repoPart || inRepoFolder || (/\/schema\.ts$/.test(f) && rel(target!) === 'src/db/schema.ts')) continue
          offenders.push(`${rel(f)} uses ${name} of ${rel(target!)}`)
        }
      }
    }
    expect(offenders).toEqual([])
  })

  test('adapters/, db/ and lib/ import nothing from http/', () => {
    // the error classes live in src/lib/errors.ts: the layers below HTTP throw them without knowing HTTP
    const below = sources.filter((f) => /^src\/(adapters|db|lib)\//.test(rel(f)))
    const offenders = below.flatMap((f) => specifiers(text.get(f)!)
      .map((s) => resolveSpec(f, s.spec))
      .filter((p): p is string => !!p && rel(p).startsWith('src/http/'))
      .map((p) => `${rel(f)} imports ${rel(p)}`))
    expect(below.length).toBeGreaterThan(0)
    expect(offenders).toEqual([])
  })

  test('drizzle-kit reads every file that defines a table (drizzle.config.ts globs; no registry of tables)', () => {
    const config = readFileSync(join(ROOT, 'drizzle.config.ts'), 'utf8')
    const globs = [...(/schema:\s*\[([^\]]*)\]/.exec(config)?.[1] ?? '').matchAll(/'\.\/([^']+)'/g)].map((m) => new Bun.Glob(m[1]!))
    expect(globs.length).toBeGreaterThan(0)
    const unread: string[] = []
    const defining = sources.filter((f) => /\bsqliteTable\(/.test(text.get(f)!))
    for (const f of defining) if (!globs.some((g) => g.match(rel(f)))) unread.push(rel(f))
    expect(defining.length).toBeGreaterThan(15)
    expect(unread).toEqual([])
  })

  // Files past about 250 lines are split by concern (a module's repo into repo-<part>.ts); 300 is the line past
  // which this fails. Apart: the client's generated types.
  const LONG_FILE_LINES = 300
  const longAllowed = ['src/client/api-types.ts']
  test(`no file in src/ runs past ${LONG_FILE_LINES} lines: a longer one is split by concern`, () => {
    const long = sources
      .filter((f) => !longAllowed.includes(rel(f)))
      .map((f) => ({ file: rel(f), lines: text.get(f)!.split('\n').length - (text.get(f)!.endsWith('\n') ? 1 : 0) }))
      .filter((f) => f.lines > LONG_FILE_LINES)
    expect(long).toEqual([])
    // the exceptions are real files (a renamed one must leave the list)
    for (const f of longAllowed) expect(existsSync(join(ROOT, f))).toBe(true)
  })

  test('no line in src/ runs past 200 characters: prose sits in wrapped literals, code is broken where it reads', () => {
    // Generated from the OpenAPI document by scripts/client-types.ts.
    const GENERATED = ['src/client/api-types.ts']
    const offenders = sources
      .filter((f) => !GENERATED.includes(rel(f)))
      .flatMap((f) => text.get(f)!.split('\n').map((line, i) => ({ line, at: `${rel(f)}:${i + 1}` })))
      .filter(({ line }) => line.length > 200)
      .map(({ line, at }) => `${at} (${line.length} characters)`)
    expect(offenders).toEqual([])
  })

  /** The module a path belongs to (`src/modules/<name>/...`), or null. */
  const moduleOf = (f: string) => rel(f).match(/^src\/modules\/([^/]+)\//)?.[1] ?? null
  test('every module has a face, src/modules/<name>/index.ts, and code outside a module imports only that', () => {
    const modules = readdirSync(join(SRC, 'modules')).filter((m) => statSync(join(SRC, 'modules', m)).isDirectory())
    expect(modules.filter((m) => !existsSync(join(SRC, 'modules', m, 'index.ts')))).toEqual([])
    const offenders: string[] = []
    for (const f of sources) {
      for (const s of specifiers(text.get(f)!)) {
        const target = resolveSpec(f, s.spec)
        const owner = target && moduleOf(target)
        if (!owner || owner === moduleOf(f)) continue
        if (rel(target!) === `src/modules/${owner}/index.ts`) continue
        offenders.push(`${rel(f)} -> ${rel(target!)}`)
      }
    }
    expect(offenders).toEqual([])
  })

  test('a face hands on no repo function: another module asks for data through a verb', () => {
    const offenders = sources
      .filter((f) => /^src\/modules\/[^/]+\/index\.ts$/.test(rel(f)))
      .filter((f) => specifiers(text.get(f)!).some((s) => /(^|\/)repo(-[a-z0-9-]+)?$/.test(s.spec.replace(/\.ts$/, ''))))
      .map(rel)
    expect(offenders).toEqual([])
  })

  test('viem and @solana/web3.js clients are built only in src/adapters/chain and src/adapters/bundler (ERC-4337)', () => {
    const offenders = sources
      .filter((f) => !rel(f).startsWith('src/adapters/chain/') && !rel(f).startsWith('src/adapters/bundler/'))
      .filter((f) => /\b(createPublicClient|createWalletClient|createTestClient)\s*\(|new\s+Connection\s*\(/.test(text.get(f)!))
      .map(rel)
    expect(offenders).toEqual([])
  })
})
