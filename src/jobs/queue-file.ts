/** What the job runner reads of bunqueue's file before it opens the queue (runner.ts). */
import { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'

/**
 * Whether the queue file holds jobs that are not finished (waiting, delayed, active...),
 * read without opening bunqueue. True when the file cannot be read as expected (another
 * bunqueue version, a lock): the queue then opens at start, as it always did.
 */
export function hasUnfinishedJobs(dataPath: string | undefined): boolean {
  if (!dataPath || !existsSync(dataPath)) return false
  let db: Database | undefined
  try {
    db = new Database(dataPath, { readonly: true })
    return db.query("SELECT 1 FROM jobs WHERE state NOT IN ('completed', 'failed') LIMIT 1").get() !== null
  } catch {
    return true
  } finally {
    db?.close()
  }
}
