/**
 * The licence gate itself (src/ops/licences/gate.ts, scripts/licences.ts), on a fixture lock
 * file (tests/fixtures/licences/package-lock.json) checked against the repository's own
 * licences.allow.json: it passes on allowed licences and refuses a production package under
 * Silence Laboratories' non-commercial licence (SLL) or the Business Source License (BUSL),
 * wherever it sits in the tree. The real tree is checked by tests/ops/licences-tree.test.ts.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkLicences, type Allowlist, type LockFile } from '@/ops/licences/gate'
import { parseSpdx, usableUnder } from '@/ops/licences/spdx'

const root = join(import.meta.dir, '../..')
const fixtureDir = join(root, 'tests/fixtures/licences')
const repoAllow = JSON.parse(readFileSync(join(root, 'licences.allow.json'), 'utf8')) as Allowlist
/** the repository's allowlist without its vendored files: those are in the repository, not in the fixture folder */
const allow: Allowlist = { ...repoAllow, vendored: {} }
const fixture = () => JSON.parse(readFileSync(join(fixtureDir, 'package-lock.json'), 'utf8')) as LockFile
/** the fixture with `extra` entries added to its packages */
const withPackages = (extra: LockFile['packages']): LockFile => { const l = fixture(); Object.assign(l.packages, extra); return l }
const refused = (lock: LockFile, dir = fixtureDir) => checkLicences(lock, allow, dir).violations.map((v) => [v.name, v.licence, v.problem])

const temps: string[] = []
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }) })

describe('licence gate on a fixture lock', () => {
  test('passes on allowed licences; dev packages are not checked; optional platform and nested packages are', () => {
    const result = checkLicences(fixture(), allow, fixtureDir)
    expect(result.violations).toEqual([])
    const by = Object.fromEntries(result.packages.map((p) => [p.path, p]))
    expect(Object.keys(by).sort()).toEqual([
      'node_modules/@fixture/native-linux-x64', 'node_modules/apache', 'node_modules/both', 'node_modules/both/node_modules/nested-isc',
      'node_modules/choice', 'node_modules/permissive-mit', 'node_modules/rpc-websockets', 'node_modules/text-encoding-utf-8',
    ])
    expect(by['node_modules/both/node_modules/nested-isc']!.name).toBe('nested-isc')
    expect(by['node_modules/@fixture/native-linux-x64']!.optional).toBe(true)
    // OR: one allowed branch; AND: every branch
    expect(by['node_modules/choice']!.usedUnder).toEqual(['MIT'])
    expect(by['node_modules/both']!.usedUnder).toEqual(['Apache-2.0', 'BSD-3-Clause'])
    // no licence field: the allowlist's entry for that name@version
    expect(by['node_modules/text-encoding-utf-8']).toMatchObject({ licence: 'Unlicense', source: 'allowlist' })
  })

  test('refuses a production package under SLL (the non-commercial DKLs library), at the top or nested', () => {
    const sll = { version: '1.1.2', license: 'SLL' }
    expect(refused(withPackages({ 'node_modules/@silencelaboratories/dkls-wasm-ll-node': sll }))).toEqual([
      ['@silencelaboratories/dkls-wasm-ll-node', 'SLL', 'SLL is not in licences.allow.json'],
    ])
    expect(refused(withPackages({ 'node_modules/both/node_modules/@silencelaboratories/dkls-wasm-ll-node': sll })).map((r) => r[0])).toEqual(['@silencelaboratories/dkls-wasm-ll-node'])
  })

  test('refuses a production package under BUSL-1.1, also as an optional one; the same as a dev package is not checked', () => {
    expect(refused(withPackages({ 'node_modules/@aave/core-v3': { version: '1.19.3', license: 'BUSL-1.1' } }))).toEqual([['@aave/core-v3', 'BUSL-1.1', 'BUSL-1.1 is not in licences.allow.json']])
    expect(refused(withPackages({ 'node_modules/busl-native': { version: '1.0.0', license: 'BUSL-1.1', optional: true } })).map((r) => r[0])).toEqual(['busl-native'])
    expect(refused(withPackages({ 'node_modules/busl-tool': { version: '1.0.0', license: 'BUSL-1.1', dev: true } }))).toEqual([])
  })

  test('an AND with one refused branch, an OR with none allowed, and text that is no SPDX expression are refused', () => {
    const lock = withPackages({
      'node_modules/and-busl': { version: '1.0.0', license: 'MIT AND BUSL-1.1' },
      'node_modules/or-none': { version: '1.0.0', license: '(SLL OR BUSL-1.1)' },
      'node_modules/see-file': { version: '1.0.0', license: 'SEE LICENSE IN LICENSE.md' },
      'node_modules/gpl-or-mit': { version: '1.0.0', license: 'GPL-3.0-only OR MIT' },
    })
    expect(refused(lock).map((r) => r[0])).toEqual(['and-busl', 'or-none', 'see-file'])
    expect(refused(lock)[2]![2]).toContain('is not an SPDX licence expression')
  })

  test('the LGPL is allowed for rpc-websockets only', () => {
    expect(refused(withPackages({ 'node_modules/other-lgpl': { version: '1.0.0', license: 'LGPL-3.0-only' } }))).toEqual([
      ['other-lgpl', 'LGPL-3.0-only', 'LGPL-3.0-only is not in licences.allow.json for this package'],
    ])
  })

  test('a package without a licence field is refused until the allowlist names its licence for that exact version', () => {
    const [name, licence, problem] = refused(withPackages({ 'node_modules/no-field': { version: '0.3.0' } }))[0]!
    expect([name, licence]).toEqual(['no-field', null])
    expect(problem).toContain('add "no-field@0.3.0" to withoutLicenceField in licences.allow.json')
    // another version than the one whose licence was read upstream
    expect(refused(withPackages({ 'node_modules/text-encoding-utf-8': { version: '1.0.3' } })).map((r) => r[0])).toEqual(['text-encoding-utf-8'])
    // 0xCarbon's DKLs23 bindings: no licence field and none found upstream (docs/mpc.md), so refused
    expect(refused(withPackages({ 'node_modules/@0xcarbon/dkls23-wasm': { version: '1.0.2' } })).map((r) => r[0])).toEqual(['@0xcarbon/dkls23-wasm'])
  })

  test("without a field in the lock, the installed package.json's license (or old licenses list) is read", () => {
    const dir = mkdtempSync(join(tmpdir(), 'slipway-licences-'))
    temps.push(dir)
    const install = (path: string, pkg: object) => { mkdirSync(join(dir, path), { recursive: true }); writeFileSync(join(dir, path, 'package.json'), JSON.stringify(pkg)) }
    install('node_modules/old-style', { name: 'old-style', licenses: [{ type: 'MIT', url: 'http://example.test' }] })
    install('node_modules/plain', { name: 'plain', license: 'ISC' })
    install('node_modules/busl-installed', { name: 'busl-installed', license: 'BUSL-1.1' })
    const lock = withPackages({ 'node_modules/old-style': { version: '0.1.8' }, 'node_modules/plain': { version: '1.0.0' }, 'node_modules/busl-installed': { version: '1.0.0' } })
    const result = checkLicences(lock, allow, dir)
    expect(result.packages.find((p) => p.name === 'old-style')).toMatchObject({ licence: 'MIT', source: 'package.json', usedUnder: ['MIT'] })
    expect(result.packages.find((p) => p.name === 'plain')).toMatchObject({ licence: 'ISC', source: 'package.json' })
    expect(result.violations.map((v) => v.name)).toEqual(['busl-installed'])
  })

  test('a vendored file is checked like a package: allowed while it is there under an allowed licence, refused when gone or not allowed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slipway-licences-vendored-'))
    temps.push(dir)
    mkdirSync(join(dir, 'assets'))
    writeFileSync(join(dir, 'assets/ui.js'), '// a bundle')
    const entry = { package: 'some-ui', version: '2.0.0', licence: 'MIT', where: 'its package.json' }
    const check = (vendored: Allowlist['vendored']) => checkLicences(fixture(), { ...allow, vendored }, dir)
    const ok = check({ 'assets/ui.js': entry })
    expect(ok.violations).toEqual([])
    expect(ok.packages.find((p) => p.name === 'some-ui')).toMatchObject({ path: 'assets/ui.js', licence: 'MIT', source: 'vendored', usedUnder: ['MIT'] })
    expect(check({ 'assets/gone.js': entry }).violations.map((v) => [v.name, v.problem])).toEqual([
      ['some-ui', 'assets/gone.js, listed in vendored in licences.allow.json, is not in the repository'],
    ])
    expect(check({ 'assets/ui.js': { ...entry, licence: 'BUSL-1.1' } }).violations.map((v) => [v.name, v.problem])).toEqual([
      ['some-ui', 'BUSL-1.1 is not in licences.allow.json'],
    ])
  })

  test('scripts/licences.ts exits 0 on the fixture and 1, naming the package, once an SLL package is in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slipway-licences-cli-'))
    temps.push(dir)
    cpSync(join(fixtureDir, 'package-lock.json'), join(dir, 'package-lock.json'))
    writeFileSync(join(dir, 'licences.allow.json'), JSON.stringify(allow))
    const run = async () => {
      const p = Bun.spawn([process.execPath, join(root, 'scripts/licences.ts'), '--root', dir], { stdout: 'pipe', stderr: 'pipe' })
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
      return { out, err, code }
    }
    const ok = await run()
    expect([ok.code, ok.err]).toEqual([0, ''])
    expect(ok.out).toContain('8 production packages')
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(withPackages({ 'node_modules/@silencelaboratories/dkls-wasm-ll-node': { version: '1.1.2', license: 'SLL' } })))
    const bad = await run()
    expect(bad.code).toBe(1)
    expect(bad.err).toContain('refused: @silencelaboratories/dkls-wasm-ll-node@1.1.2')
  })
})

describe('SPDX expressions', () => {
  const allowed = (id: string) => ['MIT', 'Apache-2.0', 'BSD-3-Clause'].includes(id)
  const under = (text: string) => { const e = parseSpdx(text); return e && usableUnder(e, allowed) }
  test('OR takes the first allowed branch, AND needs all, parentheses group, AND binds tighter than OR', () => {
    expect(under('MIT')).toEqual(['MIT'])
    expect(under('(GPL-3.0-only OR Apache-2.0)')).toEqual(['Apache-2.0'])
    expect(under('MIT AND Apache-2.0')).toEqual(['MIT', 'Apache-2.0'])
    expect(under('MIT AND GPL-3.0-only')).toBeNull()
    // GPL OR (MIT AND BSD): the right branch
    expect(under('GPL-3.0-only OR MIT AND BSD-3-Clause')).toEqual(['MIT', 'BSD-3-Clause'])
    // (GPL OR MIT) AND BSD
    expect(under('(GPL-3.0-only OR MIT) AND BSD-3-Clause')).toEqual(['MIT', 'BSD-3-Clause'])
    expect(under('Apache-2.0+')).toEqual(['Apache-2.0+'])
  })
  test('an exception is allowed only as a whole; text that is not an expression parses to null', () => {
    expect(under('Apache-2.0 WITH LLVM-exception')).toBeNull()
    for (const text of ['', 'SEE LICENSE IN LICENSE', 'MIT/X11', '(MIT', 'MIT OR', 'AND MIT', 'MIT WITH']) expect([text, parseSpdx(text)]).toEqual([text, null])
  })
})
