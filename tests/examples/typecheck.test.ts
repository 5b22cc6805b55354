/**
 * examples/ as the README's reader meets it: one script per flow, each linked from the docs with
 * the one command that runs it, and \`npm run typecheck\` reading them (a misspelt import path in
 * a file under examples/ fails it). The scripts run against the devnet in examples.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')

describe('examples/ in the type-check and the docs', () => {
  const scripts = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.ts') && !f.startsWith('_'))

  test('one script per flow, each linked from a docs page with the one command that runs it', () => {
    expect(scripts.sort()).toEqual(['bank-ramp.ts', 'card-onramp.ts', 'hello.ts', 'mpc.ts', 'swaps.ts', 'webhooks-listener.ts', 'x402.ts'])
    const docs = [...new Bun.Glob('docs/*.md').scanSync(ROOT), 'README.md'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n')
    for (const s of scripts) {
      expect(docs, s).toContain(`(../examples/${s})`)
      expect(docs, s).toContain(`npx bun examples/${s}`)
    }
  })

  // Not a whole \`tsc -p .\` (20 s on an idle 2-core machine, over 100 s on a loaded one): the three facts
  // that make it fail, each checked for itself. npm's typecheck is \`tsc --noEmit -p .\`; the project's
  // program (tsconfig.json's include) holds a new file under examples/; and that file, under the project's
  // compiler options and paths, fails on the misspelt path.
  test('npm run typecheck reads examples/: a misspelt import path there fails it', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.typecheck).toBe('tsc --noEmit -p .')
    const name = `_typo-${crypto.randomUUID().slice(0, 8)}`
    const typo = join(ROOT, 'examples', `${name}.ts`)
    const alone = join(ROOT, 'examples', `${name}.tsconfig.json`)
    writeFileSync(typo, `import { SlipwayClient } from '@slipway/clinet'\nexport const c = new SlipwayClient({ baseUrl: 'http://localhost:3000' })\n`)
    writeFileSync(alone, JSON.stringify({ extends: '../tsconfig.json', include: [], files: [`${name}.ts`] }))
    const tsc = async (...args: string[]) => {
      const r = Bun.spawn([join(ROOT, 'node_modules/.bin/tsc'), ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
      const [out, code] = await Promise.all([new Response(r.stdout).text(), r.exited])
      return { out, code }
    }
    try {
      const listed = await tsc('--noEmit', '-p', '.', '--listFilesOnly')
      expect(listed.code).toBe(0)
      expect(listed.out.split('\n')).toContain(typo)
      const checked = await tsc('--noEmit', '-p', alone)
      expect(checked.code).not.toBe(0)
      expect(checked.out).toContain(`examples/${name}.ts(1,31): error TS2307: Cannot find module '@slipway/clinet'`)
      // the same file spelt right passes: the failure is the path's
      writeFileSync(typo, `import { SlipwayClient } from '@slipway/client'\nexport const c = new SlipwayClient({ baseUrl: 'http://localhost:3000' })\n`)
      expect((await tsc('--noEmit', '-p', alone)).code).toBe(0)
    } finally {
      rmSync(typo, { force: true })
      rmSync(alone, { force: true })
    }
  }, 120_000)
})
