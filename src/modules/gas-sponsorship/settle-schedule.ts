/** The settle job's schedule (settle.ts), apart from it so a write can schedule it without loading viem. */
import { scheduleJob } from '../../jobs/outbox'
import { SETTLE_TOPIC } from './topics'

/** the checks' spacing (ms), by the number of checks done */
export const SPACING_MS = [5_000, 10_000, 20_000, 30_000, 60_000]

/** Schedules the first look at a sponsorship nothing else follows (ERC-7677, or an MPC wallet's prepared one), in the write that reserves it. */
export function scheduleSettle(tx: Parameters<typeof scheduleJob>[0], tenantId: string, id: string, now: number) {
  return scheduleJob(tx, { topic: SETTLE_TOPIC, tenantId, payload: { id, checks: 0 }, runAt: now + SPACING_MS[0]!, id: `gas-settle:${id}:0` }, now)
}
