/**
 * `bun scripts/build.ts --record-order`: the binary's first start on a fresh database (answering
 * /health, then its background start), run with BUN_BYTECODE_ORDER_OUT so Bun writes the bytecode
 * it used into the profile scripts/build.ts lays the next build's bytecode out by.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

async function once(binary: string, dir: string, out: string) {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  const proc = Bun.spawn([binary], {
    cwd: dir,
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${join(dir, 'slipway.db')}`, LOG_LEVEL: 'silent',
      BOOTSTRAP_ADMIN_USERNAME: 'order', BOOTSTRAP_ADMIN_PASSWORD: 'Order-passw0rd', BUN_BYTECODE_ORDER_OUT: out,
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const deadline = Date.now() + 30_000
  for (;;) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`${binary} did not answer /health`)
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)
    if (ok) break
    await Bun.sleep(5)
  }
  // the background start (the job runner, 100 ms after the first answer) is part of every start
  await Bun.sleep(500)
  proc.kill('SIGTERM')
  await proc.exited
}

export async function recordStartOrder(binary: string, order: string) {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-order-'))
  try {
    await once(binary, dir, order)
    chmodSync(order, 0o644)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
