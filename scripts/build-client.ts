/**
 * Builds the client as a package another project installs: `packages/client/` (`@slipway/client`),
 * from src/client (index.ts and what it imports; mpc-party.ts stays a file to copy).
 *
 *   npm run build:client                 # packages/client/dist: index.js (ESM, Node 20+, Bun, Deno) and its .d.ts
 *   npm run build:client -- --pack DIR   # and `npm pack` it into DIR: a tarball to `npm install`
 *
 * Its one dependency, openapi-fetch (MIT, with its helper types), is bundled into the package
 * (`bundleDependencies`, its licence file beside it), so installing the tarball needs no registry.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const PKG = join(ROOT, 'packages/client')
const DIST = join(PKG, 'dist')

function run(cmd: string[], cwd = ROOT) {
  const r = Bun.spawnSync(cmd, { cwd, stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) {
    console.error(`build-client: ${cmd.join(' ')} exited ${r.exitCode}\n${r.stdout.toString()}${r.stderr.toString()}`)
    process.exit(1)
  }
  return r.stdout.toString()
}

export async function buildClient(): Promise<string> {
  rmSync(DIST, { recursive: true, force: true })
  const built = await Bun.build({ entrypoints: [join(ROOT, 'src/client/index.ts')], outdir: DIST, target: 'node', format: 'esm', external: ['openapi-fetch'] })
  if (!built.success) throw new Error(`build-client: ${built.logs.join('\n')}`)
  // the declarations, from the same sources
  run([join(ROOT, 'node_modules/.bin/tsc'), 'src/client/index.ts', '--declaration', '--emitDeclarationOnly', '--outDir', DIST,
    '--target', 'esnext', '--module', 'preserve', '--moduleResolution', 'bundler', '--strict', '--skipLibCheck', '--types', 'bun', '--rootDir', 'src/client'])
  // ESM resolution (a project on \`moduleResolution: nodenext\`) needs the extension on relative paths
  for (const file of new Bun.Glob('*.d.ts').scanSync(DIST)) {
    const path = join(DIST, file)
    const text = await Bun.file(path).text()
    await Bun.write(path, text.replace(/(from |import\()(['"])\.\/([\w-]+)\2/g, '$1$2./$3.js$2'))
  }
  // the bundled dependency, as npm pack takes it (node_modules inside the package)
  for (const dep of ['openapi-fetch', 'openapi-typescript-helpers']) {
    const to = join(PKG, 'node_modules', dep)
    rmSync(to, { recursive: true, force: true })
    mkdirSync(to, { recursive: true })
    cpSync(join(ROOT, 'node_modules', dep), to, { recursive: true, filter: (src) => !src.includes(`${dep}/src`) && !src.endsWith('.map') })
  }
  return DIST
}

if (import.meta.main) {
  await buildClient()
  const at = process.argv.indexOf('--pack')
  if (at > 0) {
    const dir = process.argv[at + 1] ?? '.'
    mkdirSync(dir, { recursive: true })
    const name = run(['npm', 'pack', '--silent', '--pack-destination', dir], PKG).trim().split('\n').at(-1)!
    console.log(join(dir, name))
  } else {
    console.log(`build-client: ${DIST}`)
  }
}
