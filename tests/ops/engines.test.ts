/**
 * One Node version, said once: package.json's `engines.node` (and the README). `npm ci` prints an
 * EBADENGINE warning for every installed package whose own `engines.node` refuses the Node it
 * runs on; none may refuse the oldest version package.json admits (dev packages too: `npm ci`
 * installs them), so a clean install on a supported Node warns of nothing.
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dir, '../..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }> }

test('no package in the lock refuses the oldest Node that package.json admits', () => {
  const oldest = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(pkg.engines.node.trim())
  expect(oldest).not.toBeNull()
  const version = `${oldest![1]}.${oldest![2] ?? 0}.${oldest![3] ?? 0}`
  const refusing = Object.entries(lock.packages)
    .filter(([path, p]) => path && !Array.isArray(p.engines) && p.engines?.node && !Bun.semver.satisfies(version, p.engines.node))
    // another platform's optional binary is never installed here
    .filter(([, p]) => !(p.optional && (p.os || p.cpu)))
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`)
  expect(refusing).toEqual([])
})

test('the README names the same Node version as package.json', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const min = pkg.engines.node.replace(/^>=\s*/, '')
  expect(readme).toContain(`Node.js ${min} or later`)
})
