/**
 * The licence gate on Slipway's own production dependency tree (package-lock.json against
 * licences.allow.json), the licences `slipway --licences` prints from it, and the list
 * docs/operations.md holds. The gate itself is tested on a fixture in
 * tests/ops/licences.test.ts; the compiled binary's flag in tests/ops/binary.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkProject } from '@/ops/licences/gate'
import { formatReport, licenceReport, licencesMarkdown } from '@/ops/licences/report'
import packageJson from '../../package.json'

const root = join(import.meta.dir, '../..')

describe('licences of the production dependencies', () => {
  test('every production package of package-lock.json has a licence licences.allow.json allows', () => {
    const { packages, violations } = checkProject(root)
    expect(packages.length).toBeGreaterThan(200)
    // the docs UI script, carried in the repository instead of installed (docs/operations.md, The docs UI script)
    expect(packages.find((p) => p.source === 'vendored')).toMatchObject({ name: '@scalar/api-reference', path: 'src/http/assets/scalar-standalone.js', usedUnder: ['MIT'] })
    expect(violations.map((v) => `${v.name}: ${v.licence}: ${v.problem}`)).toEqual([])
  })

  test('package.json names neither BUSL-licensed Aave nor a non-commercial DKLs library (the MPC engine is installed apart: engines/)', () => {
    const names = Object.keys({ ...packageJson.dependencies, ...packageJson.devDependencies, ...packageJson.optionalDependencies })
    expect(names.filter((n) => n === '@aave/core-v3' || n === '@toruslabs/tss-dkls-lib' || n.startsWith('@silencelaboratories/'))).toEqual([])
  })

  test('`bun src/index.ts --licences` prints the licences counted by licence, the notable packages and the runtime', async () => {
    const expected = formatReport(licenceReport(checkProject(root)), packageJson.version)
    const p = Bun.spawn([process.execPath, 'src/index.ts', '--licences'], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    expect([code, err]).toEqual([0, ''])
    expect(out.trimEnd()).toBe(expected)
    expect(out).toMatch(/^ {2}MIT +\d+$/m)
    expect(out).toContain('rpc-websockets@')
    expect(out).toContain('JavaScriptCore')
    const json = Bun.spawn([process.execPath, 'src/index.ts', '--licences', '--json'], { cwd: root, stdout: 'pipe' })
    const report = JSON.parse(await new Response(json.stdout).text()) as ReturnType<typeof licenceReport>
    expect(report.total).toBe(report.groups.reduce((n, g) => n + g.count, 0))
  })

  test('docs/operations.md lists the licences as `bun scripts/licences.ts --markdown` prints them', () => {
    const docs = readFileSync(join(root, 'docs/operations.md'), 'utf8')
    expect(docs).toContain(licencesMarkdown(licenceReport(checkProject(root))))
  })
})
