/**
 * The portfolio module's background jobs (snapshots.ts): the daily run and each tenant's
 * recording. With PORTFOLIO_SNAPSHOTS=daily (the default) a worker's start schedules today's
 * run (the next midnight's on a deployment without wallets: schedule.ts), which schedules the
 * next one at 00:00 UTC, and so on: the schedule lives in the outbox
 * like any job, so it survives restarts and several workers share it. The code behind the
 * jobs (and the chain libraries) loads with the first one.
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { scheduleFirstRun } from './schedule'
import { DAILY_TOPIC, TENANT_TOPIC } from './topics'

const run = lazy(() => import('./snapshots'))

export function registerPortfolioJobs(runner: JobRunner) {
  runner.register(DAILY_TOPIC, {
    attempts: 3,
    backoffMs: 5000,
    handler: async (_payload, ctx) => (await run()).runDailyRun(ctx.deps),
  })
  runner.register(TENANT_TOPIC, {
    attempts: 3,
    backoffMs: 5000,
    handler: async (_payload, ctx) => (await run()).recordTenantDay(ctx.deps, ctx.tenantId!),
  })
  if (runner.deps.config.portfolioSnapshots === 'daily') runner.onStart(scheduleFirstRun)
  return runner
}
