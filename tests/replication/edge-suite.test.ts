/**
 * The platform's end-to-end HTTP suite against an edge: an API process whose database
 * is an embedded replica of a real sqld primary (and a remote-primary process too).
 */
import { chainRoutesSuite, coreHttpSuite } from '@tests/helpers/core-http-suite'
import type { RunningProcess } from '@tests/helpers/process'
import { startSqld } from '@tests/helpers/sqld'
import { startEdge, startOnPrimary } from './helpers'

/** A fresh primary per suite; stopping the process also stops the server and deletes its folder. */
function withPrimary(start: (sqld: Awaited<ReturnType<typeof startSqld>>) => Promise<RunningProcess>) {
  return async (): Promise<RunningProcess> => {
    const sqld = await startSqld()
    try {
      const p = await start(sqld)
      return { ...p, stop: async (signal) => {
        const code = await p.stop(signal)
        await sqld.stop()
        return code
      } }
    } catch (err) {
      await sqld.stop()
      throw err
    }
  }
}

coreHttpSuite('an edge on an embedded replica (DATABASE_URL=file:…, DATABASE_SYNC_URL=http://primary)', withPrimary((sqld) => startEdge(sqld)))
chainRoutesSuite('an edge on an embedded replica, the code loaded on first use', withPrimary((sqld) => startEdge(sqld, { RPC_URL_SOLANA: 'http://127.0.0.1:9' })))
coreHttpSuite('a process on a remote primary (DATABASE_URL=http://primary)', withPrimary((sqld) => startOnPrimary(sqld)))
