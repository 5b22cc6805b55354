/**
 * A worker's start under PORTFOLIO_SNAPSHOTS=daily: today's run when there are wallets to
 * record, else the run at the next 00:00 UTC. Light on purpose (no chain libraries): an idle,
 * empty deployment opens no queue and loads nothing at start; the first run comes at midnight
 * (tests/ops/binary.test.ts checks that an idle binary has no queue file).
 */
import type { Deps } from '../../deps'
import { scheduleJob } from '../../jobs/outbox'
import { anyLiveWallet } from '../wallets'
import { dailyJob, dayOf, nextMidnight } from './topics'

export async function scheduleFirstRun(deps: Deps) {
  const now = deps.clock.now()
  const at = (await anyLiveWallet(deps.database.db)) ? now : nextMidnight(now)
  await deps.database.write((tx) => scheduleJob(tx, dailyJob(dayOf(at), at), now))
}
