/** Slipway processes in the replicated shapes, against a real sqld started by tests/helpers/sqld.ts. */
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { startProcess, type RunningProcess } from '@tests/helpers/process'
import type { Sqld } from '@tests/helpers/sqld'

/** One master key and JWT secret for every process sharing a primary (sealed values are shared). */
export const SHARED_ENV = {
  NODE_ENV: 'test',
  MASTER_KEY: Buffer.alloc(32, 13).toString('base64'),
  JWT_SECRET: 'replication-test-jwt-secret-0123456789abcdef',
}

/**
 * An edge: its database is an embedded replica in a folder inside the server's
 * temporary folder (so stopping the server deletes it too).
 */
export function startEdge(sqld: Sqld, env: Record<string, string> = {}): Promise<RunningProcess> {
  const dir = mkdtempSync(join(sqld.dir, 'edge-'))
  return startProcess([process.execPath, 'src/index.ts'], {
    dir,
    env: { ...SHARED_ENV, DATABASE_URL: `file:${dir}/replica.db`, DATABASE_SYNC_URL: sqld.url, SLIPWAY_ROLE: 'api', ...env },
  })
}

/** A process on the primary itself (DATABASE_URL=http://…); its queue file goes to DATA_DIR. */
export function startOnPrimary(sqld: Sqld, env: Record<string, string> = {}): Promise<RunningProcess> {
  const dir = mkdtempSync(join(sqld.dir, 'proc-'))
  return startProcess([process.execPath, 'src/index.ts'], {
    dir,
    env: { ...SHARED_ENV, DATABASE_URL: sqld.url, DATA_DIR: dir, ...env },
  })
}
