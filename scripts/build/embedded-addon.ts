/**
 * A native addon the compiled binary carries zstd-compressed (scripts/build.ts): on first use it is
 * written out once, decompressed, to a folder of this user's own (`$TMPDIR/slipway-<uid>`, mode 0700,
 * as Bun itself writes out the addons it embeds), named by its content's hash, and loaded from there;
 * later starts find it and only load it. A folder or file another user owns, or others can write,
 * is refused, not loaded. Only the binary uses this; a clone loads the addon from node_modules.
 */
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync, type Stats } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function ownOnly(path: string, st: Stats) {
  const uid = process.getuid?.()
  if ((uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
    throw new Error(`slipway: ${path} is not this user's own (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)}); remove it or set TMPDIR`)
  }
}

export function embeddedAddon(name: string, hash: string, size: number): unknown {
  const dir = join(tmpdir(), `slipway-${process.getuid?.() ?? 'user'}`)
  const file = join(dir, `${name}-${hash}.node`)
  let st: Stats | undefined
  try {
    st = statSync(file)
  } catch { /* not written out yet */ }
  if (st?.size !== size) {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    ownOnly(dir, statSync(dir))
    // the compressed copy sits beside the binary's code in its embedded file system
    const bytes = Bun.zstdDecompressSync(readFileSync(join(import.meta.dir, `${name}.node.zst`)))
    const part = `${file}.${process.pid}.part`
    // written a page at a time: one large write leaves the file in the page cache as large folios,
    // and the loaded code then maps whole folios (8.3 MiB of libSQL resident instead of 4.7)
    const fd = openSync(part, 'w', 0o700)
    try {
      for (let at = 0; at < bytes.length; at += 4096) writeSync(fd, bytes, at, Math.min(4096, bytes.length - at))
    } finally {
      closeSync(fd)
    }
    chmodSync(part, 0o700)
    renameSync(part, file)
    st = statSync(file)
  }
  ownOnly(dir, statSync(dir))
  ownOnly(file, st)
  return require(file)
}
