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

  // tsc over the whole project: 20 s on an idle 2-core machine, minutes on a loaded one
  test('npm run typecheck reads examples/: a misspelt import path there fails it', async () => {
    const typo = join(ROOT, 'examples', `_typo-${crypto.randomUUID().slice(0, 8)}.ts`)
    writeFileSync(typo, `import { SlipwayClient } from '@slipway/clinet'\nexport const c = new SlipwayClient({ baseUrl: 'http://localhost:3000' })\n`)
    try {
      const r = Bun.spawn(['npm', 'run', 'typecheck'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
      const [out, code] = await Promise.all([new Response(r.stdout).text(), r.exited])
      expect(code).not.toBe(0)
      expect(out).toContain(`examples/${typo.slice(typo.lastIndexOf('/') + 1)}(1,31): error TS2307: Cannot find module '@slipway/clinet'`)
    } finally {
      rmSync(typo, { force: true })
    }
  }, 600_000)
})
