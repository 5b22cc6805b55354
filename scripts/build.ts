/**
 * `npm run build`: one executable, dist/slipway, that runs from an empty folder.
 *
 * Two steps. The app is first bundled into ES module chunks (`splitting`), so code loaded on
 * first use (the chain libraries, the mailer, bunqueue, the OpenAPI and YAML writers, Stripe's
 * SDK...) is in chunks of its own. Then `bun build --compile` makes the executable: the chunks
 * every start evaluates (the entry, what it imports directly, and their static imports) with
 * their bytecode, which is what makes a start fast; the chunks loaded on first use embedded as
 * plain files, which the runtime parses when a request first needs them (a few ms, once). Bytecode
 * is larger than the code it compiles (the start's 1.7 MiB of code comes with about 5.7 MiB of bytecode
 * and module metadata): with bytecode for every chunk, most of it for code an idle server never runs,
 * the binary was 133.9 MiB, against 117.2 MiB as built here (docs/benchmarks.md, "The compiled binary").
 *
 * `bun build --compile` embeds JavaScript and files it can see statically; the native addons of
 * libSQL and argon2 are loaded through dynamic requires, so this plugin rewrites those loaders.
 * libSQL's (9.3 MiB) is embedded zstd-compressed (3.1 MiB) and written out once to a cache folder
 * (scripts/build/embedded-addon.ts); argon2's is required directly, which Bun embeds as is.
 * Migrations are embedded by a macro (src/db/migrations-macro.ts) and the docs UI script by a file
 * (src/http/scalar-asset.ts), which this build swaps for a gzip-compressed copy: 1 MiB instead of
 * 3.4 MiB, and the whole binary is resident.
 * The licence report that `slipway --licences` prints is computed here, from the
 * package-lock.json the binary is built from, and replaces src/ops/licences/shipped.ts.
 *
 *   bun scripts/build.ts [OUTFILE] [--smol] [--bytecode=start|all|none]
 */
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
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
// Which chunks carry bytecode: those a start evaluates (the release build), all of them, or none
// (scripts/bench/binary.ts builds the three to compare them).
const bytecode = args.find((a) => a.startsWith('--bytecode='))?.slice('--bytecode='.length) ?? 'start'
if (!['start', 'all', 'none'].includes(bytecode)) throw new Error(`--bytecode=start|all|none, not ${bytecode}`)
const outfile = args.find((a) => !a.startsWith('--')) ?? join(root, 'dist/slipway')
// `--record-order`: build, run the binary's first start on a fresh database (which does all a restart
// does, and the migrations and the bootstrap admin) with Bun recording which bytecode it uses into
// scripts/build/start.order, and build again with it. A profile keeps applying as the code changes (functions are matched by a hash of their
// syntax); record it again when many start functions changed.
const recordOrder = args.includes('--record-order')
const order = join(import.meta.dir, 'build/start.order')
const orderFiles = recordOrder || !existsSync(order) ? [] : [order]
const JIT_POLICY = 32

for (const f of [libsqlNative, argon2Native]) {
  if (!(await Bun.file(f).exists())) throw new Error(`native addon not found for ${target}: ${f}`)
}
const work = mkdtempSync(join(tmpdir(), 'slipway-build-'))
const chunks = join(work, 'chunks')
// Files the executable embeds under fixed names, beside its code: read at run time from import.meta.dir.
const scalarGz = join(chunks, 'scalar.js.gz')
const libsqlZst = join(chunks, 'libsql.node.zst')
const argon2Zst = join(chunks, 'argon2.node.zst')
const libsqlBytes = await Bun.file(libsqlNative).bytes()
const argon2Bytes = await Bun.file(argon2Native).bytes()
const addon = (name: string, bytes: Uint8Array) => `require(${JSON.stringify(join(import.meta.dir, 'build/embedded-addon.ts'))}).embeddedAddon(`
  + `'${name}', ${JSON.stringify(Bun.hash(bytes).toString(16))}, ${bytes.length})`
const licences = shippedLicences()

function fail(result: Bun.BuildOutput) {
  for (const log of result.logs) console.error(log)
  process.exit(1)
}

try {
  // 1. The app as ES module chunks, identifiers kept: Elysia reads handlers' parameter names to decide what to parse.
  const minify = { whitespace: true, syntax: true, identifiers: false }
  const bundled = await Bun.build({
    entrypoints: [join(root, 'src/index.ts')],
    outdir: chunks,
    target: 'bun',
    format: 'esm',
    splitting: true,
    minify,
    sourcemap: 'none',
    metafile: true,
    // bull-board's flow provider requires BullMQ, which Slipway does not use (its queue is bunqueue).
    external: ['bullmq'],
    plugins: [{
      name: 'embed-assets',
      setup(build) {
        build.onLoad({ filter: /[\\/]src[\\/]http[\\/]scalar-asset\.ts$/ }, () => ({
          contents: `export const scalarScript = { body: () => Bun.file(import.meta.dir + '/scalar.js.gz'), encoding: 'gzip' }\n`,
          loader: 'ts',
        }))
        build.onLoad({ filter: /[\\/]src[\\/]ops[\\/]licences[\\/]shipped\.ts$/ }, () => ({
          contents: `export const shippedLicences = () => (${JSON.stringify(licences)})\n`,
          loader: 'ts',
        }))
        build.onLoad({ filter: /[\\/]node_modules[\\/]libsql[\\/](index|promise)\.js$/ }, async (args) => {
          const src = await Bun.file(args.path).text()
          const patched = src.replace(/function requireNative\(\) \{[\s\S]*?\n\}\n/, `function requireNative() { return ${addon('libsql', libsqlBytes)}; }\n`)
          if (patched === src) throw new Error('libsql loader changed shape; update scripts/build.ts')
          return { contents: patched, loader: 'js' }
        })
        build.onLoad({ filter: /[\\/]node_modules[\\/]@node-rs[\\/]argon2[\\/]index\.js$/ }, () => ({
          contents: `const n = ${addon('argon2', argon2Bytes)}; module.exports = n; module.exports.Algorithm = n.Algorithm;`
            + ' module.exports.hash = n.hash; module.exports.verify = n.verify; module.exports.Version = n.Version;',
          loader: 'js',
        }))
      },
    }],
  })
  if (!bundled.success) fail(bundled)
  await Bun.write(scalarGz, Bun.gzipSync(await Bun.file(join(root, 'src/http/assets/scalar-standalone.js')).bytes(), { level: 9 }))
  await Bun.write(libsqlZst, Bun.zstdCompressSync(libsqlBytes, { level: 19 }))
  await Bun.write(argon2Zst, Bun.zstdCompressSync(argon2Bytes, { level: 19 }))

  // 2. What a start evaluates: the entry, the chunks it imports (statically or not), and what they import or require.
  const meta = JSON.parse(typeof bundled.metafile === 'string' ? bundled.metafile : JSON.stringify(bundled.metafile)) as {
    outputs: Record<string, { entryPoint?: string; imports?: Array<{ path: string; kind: string }> }>
  }
  const outputs = meta.outputs
  const entryKey = Object.keys(outputs).find((k) => outputs[k]!.entryPoint)!
  const startKeys = new Set<string>()
  const visit = (k: string) => {
    if (startKeys.has(k) || !outputs[k]) return
    startKeys.add(k)
    for (const i of outputs[k]!.imports ?? []) if (i.kind !== 'dynamic-import') visit(i.path)
  }
  visit(entryKey)
  for (const i of outputs[entryKey]!.imports ?? []) visit(i.path)
  const entry = basename(entryKey)
  const files = readdirSync(chunks)
  const unexpected = files.filter((f) => !f.endsWith('.js') && f !== basename(scalarGz) && f !== basename(libsqlZst) && f !== basename(argon2Zst))
  if (unexpected.length) throw new Error(`the bundle references files this build does not embed: ${unexpected.join(', ')}`)
  const js = files.filter((f) => f.endsWith('.js'))
  const start = js.filter((f) => bytecode === 'all' || [...startKeys].some((k) => basename(k) === f))
  const lazy = js.filter((f) => !start.includes(f))
  // The chunks loaded on first use are embedded zstd-compressed (5.5 MiB of code in 1.4) and given to
  // the runtime as virtual modules, `slipway-lazy:<chunk>`, on their first import (src/index.ts's
  // first import registers them): they import the compiled chunks by their path in the binary.
  const lazySet = new Set(lazy)
  const refs = /"\.\/([A-Za-z0-9_.-]+\.js)"/g
  for (const f of js) {
    const path = join(chunks, f)
    const text = await Bun.file(path).text()
    if (lazySet.has(f)) {
      const rewritten = text.replace(refs, (m, n: string) => !js.includes(n) ? m : lazySet.has(n) ? `"slipway-lazy:${n}"` : `"slipway-root:${n}"`)
      await Bun.write(`${path}.zst`, Bun.zstdCompressSync(new TextEncoder().encode(rewritten), { level: 19 }))
      rmSync(path)
    } else {
      await Bun.write(path, text.replace(refs, (m, n: string) => lazySet.has(n) ? `"slipway-lazy:${n}"` : m))
    }
  }
  if (lazy.length) {
    await Bun.write(join(chunks, 'lazy-chunks.js'), [
      `import { readFileSync } from 'node:fs'`,
      `const root = import.meta.dir`,
      `const load = (n) => new TextDecoder().decode(Bun.zstdDecompressSync(readFileSync(root + '/' + n + '.zst'))).replaceAll('"slipway-root:', '"' + root + '/')`,
      `Bun.plugin({ name: 'slipway-lazy-chunks', setup(build) { for (const n of ${JSON.stringify(lazy)}) build.module('slipway-lazy:' + n, () => ({ contents: load(n), loader: 'js' })) } })`,
    ].join('\n') + '\n')
    const entryText = await Bun.file(join(chunks, entry)).text()
    await Bun.write(join(chunks, entry), `import "./lazy-chunks.js";\n${entryText}`)
  }

  // 3. The executable: the start chunks compiled with their bytecode, under the same names in its
  // /$bunfs/root; the compressed chunks and the files beside them.
  const prev = process.cwd()
  process.chdir(chunks)
  const assets = readdirSync(chunks).filter((f) => !f.endsWith('.js'))
  const compiled = await Bun.build({
    entrypoints: [`./${entry}`, ...start.filter((f) => f !== entry).map((f) => `./${f}`)],
    compile: {
      outfile,
      execArgv: smol ? ['--smol'] : [],
      assets: assets.map((f) => `./${f}`),
      // Code that runs once at start stays in JavaScriptCore's interpreter (tier-up thresholds × 32)
      // until src/main.ts sets the normal policy, when the server answers: a restart used 30% less
      // CPU by then, and its idle process held 3-5 MiB less of JIT code (docs/benchmarks.md).
      jitPolicy: JIT_POLICY,
      // The bytecode a start uses laid out together at the front (profile-guided: scripts/build/start.order,
      // recorded with --record-order), so an idle server pages in less of it.
      ...(bytecode !== 'none' && orderFiles.length ? { bytecodeOrder: orderFiles } : {}),
    },
    target: 'bun',
    format: 'esm',
    splitting: true,
    naming: { entry: '[name].[ext]' },
    minify,
    bytecode: bytecode !== 'none',
    sourcemap: 'none',
    plugins: [{
      name: 'lazy-chunks',
      setup(build) {
        build.onResolve({ filter: /^slipway-lazy:/ }, (a) => ({ path: a.path, external: true }))
      },
    }],
  }).finally(() => process.chdir(prev))
  if (!compiled.success) fail(compiled)
  // Written out again a page at a time. Bun writes the executable in one go, which leaves it in the
  // page cache as large folios, and a process started from it then maps whole folios of itself: an
  // idle server held 4.5 MiB more of the binary than one started from the same file read back from
  // disk (after a reboot, or copied through a small buffer). Page-sized writes leave it as a binary
  // read from disk is (docs/operations.md, Memory).
  const bytes = await Bun.file(outfile).bytes()
  const part = `${outfile}.part`
  const fd = openSync(part, 'w', 0o755)
  try {
    for (let at = 0; at < bytes.length; at += 4096) writeSync(fd, bytes, at, Math.min(4096, bytes.length - at))
  } finally {
    closeSync(fd)
  }
  renameSync(part, outfile)
} finally {
  rmSync(work, { recursive: true, force: true })
}
if (recordOrder) {
  const { recordStartOrder } = await import('./build/record-order')
  await recordStartOrder(outfile, order)
  const again = Bun.spawnSync([process.execPath, import.meta.path, outfile, ...args.filter((a) => a !== '--record-order')], { stdout: 'inherit', stderr: 'inherit' })
  process.exit(again.exitCode ?? 1)
}
const size = (await Bun.file(outfile).stat()).size
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) for ${target}${smol ? ', --smol' : ''}, bytecode: ${bytecode}`)
