/**
 * The group's background jobs: `agent_payments.execution.follow` follows an execution's
 * onchain send until it is mined (then `succeeded` or `failed`); `agent_payments.approval.expire`
 * expires an approval nobody decided (and its execution); `agent_payments.confirmation.expire` an
 * execution a human never confirmed; `agent_payments.x402.settle` decides an x402 payment whose
 * signed authorization has expired (used: `succeeded`, else `failed`); `agent_payments.execution.watch`
 * adopts or fails an execution left `processing` with nothing following it (watch.ts). The code loads with the first job.
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { APPROVAL_EXPIRE_TOPIC, CONFIRMATION_EXPIRE_TOPIC, EXECUTION_FOLLOW_TOPIC, EXECUTION_WATCH_TOPIC, X402_SETTLE_TOPIC } from './topics'

const run = lazy(() => import('./executions/pay'))
const x402 = lazy(() => import('./x402/x402-settle'))
const watch = lazy(() => import('./executions/watch'))

export function registerAgentPaymentJobs(runner: JobRunner) {
  runner.register(EXECUTION_FOLLOW_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await run()).followExecution(ctx.deps, ctx.tenantId, payload),
  })
  runner.register(APPROVAL_EXPIRE_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await run()).expireApproval(ctx.deps, ctx.tenantId, payload),
  })
  runner.register(CONFIRMATION_EXPIRE_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await run()).expireConfirmation(ctx.deps, ctx.tenantId, payload),
  })
  runner.register(X402_SETTLE_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await x402()).settleX402(ctx.deps, ctx.tenantId, payload),
  })
  runner.register(EXECUTION_WATCH_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await watch()).watchExecution(ctx.deps, ctx.tenantId, payload),
  })
  return runner
}
