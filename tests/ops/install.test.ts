/**
 * What `npm ci` and `docker build` need from the repository, checked without running them
 * (.ci/run runs `npm ci` on a clean clone; no Docker engine runs the tests): a lock file
 * that matches package.json and records every platform's optional packages, and a Dockerfile
 * whose final image is the binary alone on a pinned base.
 */
import { describe, expect, test } from 'bun:test'

type Entry = { version?: string; integrity?: string; link?: boolean; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; devDependencies?: Record<string, string> }
const lock = (await Bun.file('package-lock.json').json()) as { lockfileVersion: number; packages: Record<string, Entry> }
const pkg = (await Bun.file('package.json').json()) as Entry & { optionalDependencies?: Record<string, string> }

/** Where Node would find `name` from the package at `from`: its own node_modules, then each parent's. */
function resolve(from: string, name: string): string | undefined {
  let dir = from
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`
    if (lock.packages[candidate]) return candidate
    if (!dir) return undefined
    const at = dir.lastIndexOf('node_modules/')
    dir = at <= 0 ? '' : dir.slice(0, at - 1)
  }
}

describe('package-lock.json', () => {
  test('names exactly the dependencies package.json names', () => {
    const root = lock.packages['']!
    expect(root.dependencies).toEqual(pkg.dependencies)
    expect(root.devDependencies).toEqual(pkg.devDependencies)
    expect(root.optionalDependencies).toEqual(pkg.optionalDependencies)
  })

  test('records every optional dependency of every package (other platforms\' binaries too), each with its version and integrity', () => {
    const missing: string[] = []
    const unpinned: string[] = []
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!path || entry.link) continue
      if (!entry.version || !entry.integrity) unpinned.push(path)
      for (const name of Object.keys(entry.optionalDependencies ?? {})) if (!resolve(path, name)) missing.push(`${path} -> ${name}`)
    }
    expect(missing).toEqual([])
    expect(unpinned).toEqual([])
  })
})

describe('Dockerfile', () => {
  const dockerfile = Bun.file('Dockerfile').text()
  const stages = async () => (await dockerfile).split(/^FROM /m).slice(1)

  test('every base image is pinned to an exact version (or a digest)', async () => {
    for (const stage of await stages()) {
      const image = stage.split(/\s/)[0]!
      expect(image).toMatch(/(:[a-z-]*\d+\.\d+[\w.-]*|@sha256:[0-9a-f]{64})/)
    }
  })

  test('installs from the lock file, production dependencies only; the final image holds the binary alone', async () => {
    const [build, final] = await stages()
    expect(build).toContain('npm ci --omit=dev')
    expect(build).not.toMatch(/npm install\b/)
    expect(final).not.toMatch(/\bnpm\b|node_modules|COPY \. /)
    expect(final).toContain('COPY --from=build /src/dist/slipway /usr/local/bin/slipway')
  })

  test('.env files stay out of the build context', async () => {
    const ignored = (await Bun.file('.dockerignore').text()).split('\n').map((l) => l.trim())
    expect(ignored).toContain('.env')
    expect(ignored).toContain('.env.*')
  })
})
