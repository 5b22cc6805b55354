/**
 * `npm run build`: one executable, dist/slipway, that runs from an empty folder.
 * `bun build --compile` embeds JavaScript and files it can see statically; the native
 * addons of libSQL and argon2 are loaded through dynamic requires, so this plugin
 * rewrites those loaders to require the platform's `.node` file directly, which Bun
 * then embeds. Migrations are embedded by a macro (src/db/migrations-macro.ts) and the
 * docs UI script by a file import (src/http/scalar-asset.ts), which this build swaps for
 * a gzip-compressed copy: 1 MiB instead of 3.4 MiB, and the whole binary is resident.
 * The licence report that `slipway --licences` prints is computed here, from the
 * package-lock.json the binary is built from, and replaces src/ops/licences/shipped.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { familySync, GLIBC } from 'detect-libc'
import { shippedLicences } from '../src/ops/licences/shipped'

const arch = process.arch
const libc = process.platform === 'linux' ? (familySync() === GLIBC ? '-gnu' : '-musl') : ''
const target = `${process.platform}-${arch}${libc}`
const root = join(import.meta.dir, '..')
const libsqlNative = join(root, `node_modules/@libsql/${target}/index.node`)
const argon2Native = join(root, `node_modules/@node-rs/argon2-${target}/argon2.${target}.node`)
const args = process.argv.slice(2)
// `--smol` builds with Bun's memory-saving mode (compile.execArgv). The release binary is built
// without it: under the bearer read it held no less memory than the engine's own pacing, and
// answered fewer reads (scripts/bench/binary.ts compares them; docs/operations.md, Memory).
const smol = args.includes('--smol')
const outfile = args.find((a) => !a.startsWith('--')) ?? join(root, 'dist/slipway')

for (const f of [libsqlNative, argon2Native]) {
  if (!(await Bun.file(f).exists())) throw new Error(`native addon not found for ${target}: ${f}`)
}
const work = mkdtempSync(join(tmpdir(), 'slipway-build-'))
const scalarGz = join(work, 'scalar.js.gz')
await Bun.write(scalarGz, Bun.gzipSync(await Bun.file(join(root, 'src/http/assets/scalar-standalone.js')).bytes(), { level: 9 }))

const licences = shippedLicences()

const result = await Bun.build({
  entrypoints: [join(root, 'src/index.ts')],
  compile: { outfile, execArgv: smol ? ['--smol'] : [] },
  // Identifiers are kept: Elysia reads handlers' parameter names to decide what to parse (headers, body...).
  minify: { whitespace: true, syntax: true, identifiers: false },
  bytecode: true,
  // Code loaded on first use (the chain libraries, the mailer, bunqueue, the OpenAPI and
  // YAML writers...) goes into chunks of its own, so an idle binary has not paged in its
  // source and bytecode: 6 MiB less resident than one bundle (scripts/bench/binary.ts).
  // Chunks need ES modules; bytecode for them needs Bun 1.3 or later.
  format: 'esm',
  splitting: true,
  sourcemap: 'none',
  // bull-board's flow provider requires BullMQ, which Slipway does not use (its queue is bunqueue).
  external: ['bullmq'],
  plugins: [{
    name: 'embed-assets',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]http[\\/]scalar-asset\.ts$/ }, () => ({
        contents: `import p from ${JSON.stringify(scalarGz)} with { type: 'file' }\nexport const scalarScript = { body: () => Bun.file(p), encoding: 'gzip' }\n`,
        loader: 'ts',
      }))
      build.onLoad({ filter: /[\\/]src[\\/]ops[\\/]licences[\\/]shipped\.ts$/ }, () => ({
        contents: `export const shippedLicences = () => (${JSON.stringify(licences)})\n`,
        loader: 'ts',
      }))
      build.onLoad({ filter: /[\\/]node_modules[\\/]libsql[\\/]index\.js$/ }, async (args) => {
        const src = await Bun.file(args.path).text()
        const patched = src.replace(/function requireNative\(\) \{[\s\S]*?\n\}\n/, `function requireNative() { return require(${JSON.stringify(libsqlNative)}); }\n`)
        if (patched === src) throw new Error('libsql loader changed shape; update scripts/build.ts')
        return { contents: patched, loader: 'js' }
      })
      build.onLoad({ filter: /[\\/]node_modules[\\/]@node-rs[\\/]argon2[\\/]index\.js$/ }, () => ({
        contents: `const n = require(${JSON.stringify(argon2Native)}); module.exports = n; module.exports.Algorithm = n.Algorithm; module.exports.hash = n.hash; module.exports.verify = n.verify; module.exports.Version = n.Version;`,
        loader: 'js',
      }))
    },
  }],
}).finally(() => rmSync(work, { recursive: true, force: true }))
if (!result.success) {
  for (const log of result.logs) console.error(log)
  process.exit(1)
}
const size = (await Bun.file(outfile).stat()).size
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) for ${target}${smol ? ', --smol' : ''}`)
