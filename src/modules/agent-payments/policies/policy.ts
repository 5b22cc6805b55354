/**
 * The policy engine: a pure function that judges one payment an agent wants to make against
 * its policy. No database, no clock: the caller passes `now` and what was spent in each
 * window. `POST /policies/{id}/simulate` answers it as it is; executions (later) judge and
 * reserve in one write transaction with the same function.
 *
 * Evaluation order (docs/agent-payments.md): every check runs and every failed one adds a
 * reason, so one answer lists everything that is wrong; any deny reason makes the decision
 * `deny`. Without one, the approval mode decides between `allow` and `require_approval`.
 *  1. agent active            5. merchant not blocked          9. executions per day
 *  2. merchant enabled        6. merchant in the allowed list  10. per_transaction limit
 *     (2, 5: the named merchant and every merchant at the payee's address; 5b: a payee no merchant has registered, payees.ts)
 *  3. currency of the policy  7. category allowed              11. daily/weekly/monthly/all_time limits
 *  4. rail and network        8. active hours                  12. approval mode
 */
import { payeeFindings, type Payee } from './payees'
import type { ActiveHours, ApprovalMode, LimitInterval, PolicyLimit, Rail, Weekday } from '../record-types'

export type Decision = 'allow' | 'require_approval' | 'deny'
export interface Reason { code: string; message: string; interval?: LimitInterval }
export type WindowInterval = Exclude<LimitInterval, 'per_transaction'>
export const WINDOW_INTERVALS: readonly WindowInterval[] = ['daily', 'weekly', 'monthly', 'all_time']

export interface PolicyInput {
  currency: string
  limits: PolicyLimit[]
  allowedMerchantIds?: string[] | null
  blockedMerchantIds?: string[] | null
  allowedCategories?: string[] | null
  allowedRails?: Rail[] | null
  allowedNetworks?: string[] | null
  approvalMode: ApprovalMode
  approvalThreshold?: string | null
  maxExecutionsPerDay?: number | null
  activeHours?: ActiveHours | null
  allowUnregisteredPayees?: boolean | null
}

export interface JudgeInput {
  agent: { id: string; status: string }
  policy: PolicyInput
  merchant?: { id: string; status: string; category?: string | null; network?: string } | null
  /** the address paid, when known (the named merchant's payTo; on x402 without one, only once the resource asks), with the merchants registered at it */
  payee?: Payee | null
  /** decimal string in `currency` */
  amount: string
  currency: string
  rail: Rail
  /** registry id; for `onchain` without one, the merchant's payTo network */
  network?: string | null
  /** Unix ms */
  now: number
  /** decimal strings already counted (waiting, reserved or paid) in each window that contains `now` */
  spent: Partial<Record<WindowInterval, string>>
  /** executions counted today (the policy's day) */
  executionsToday?: number
}

export interface Judgement { decision: Decision; reasons: Reason[] }

// Decimal strings as fixed-point bigints: amounts never go through a float.
const SCALE = 18
export const DECIMAL_PATTERN = '^(0|[1-9][0-9]{0,26})(\\.[0-9]{1,18})?$'
const DECIMAL = new RegExp(DECIMAL_PATTERN)

export function toUnits(s: string): bigint {
  if (!DECIMAL.test(s)) throw new Error(`not a decimal amount: ${s}`)
  const [int, frac = ''] = s.split('.')
  return BigInt(int!) * 10n ** BigInt(SCALE) + BigInt(frac.padEnd(SCALE, '0'))
}

export function fromUnits(u: bigint): string {
  const neg = u < 0n
  const a = neg ? -u : u
  const int = a / 10n ** BigInt(SCALE)
  const frac = (a % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0').replace(/0+$/, '')
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
}

const sameCurrency = (a: string, b: string) => a.toUpperCase() === b.toUpperCase()

/** The policy's time zone: its active hours' one, else UTC. Windows (days, weeks, months) are counted in it. */
export const policyTimeZone = (p: Pick<PolicyInput, 'activeHours'>) => p.activeHours?.timeZone ?? 'UTC'

/**
 * An IANA zone name (`Europe/Berlin`, `UTC`, `Etc/GMT+5`) the runtime knows. Offsets (`-00:05`,
 * `+0100`), which `Intl` also takes, are refused: a policy's day starts at a zone's midnight.
 */
export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/.test(tz)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

interface LocalTime { year: number; month: number; day: number; weekday: Weekday; minutes: number }

const formatters = new Map<string, Intl.DateTimeFormat>()
function localTime(ms: number, timeZone: string): LocalTime {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', weekday: 'short', hour: 'numeric', minute: 'numeric' })
    formatters.set(timeZone, f)
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]))
  return {
    year: Number(parts.year), month: Number(parts.month), day: Number(parts.day),
    weekday: parts.weekday!.toLowerCase().slice(0, 3) as Weekday,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  }
}

/** The instant (Unix ms) of a local midnight in the time zone (the zone's offset read twice, for days that change it). */
function localMidnight(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day)
  const offsetAt = (ms: number) => {
    const l = localTime(ms, timeZone)
    return Date.UTC(l.year, l.month - 1, l.day) + l.minutes * 60_000 - Math.floor(ms / 60_000) * 60_000
  }
  const guess = wall - offsetAt(wall)
  return wall - offsetAt(guess)
}

/**
 * The window of an interval that contains `now`, in the time zone: `daily` the local day,
 * `weekly` the local week from Monday, `monthly` the local calendar month; `all_time` from 0.
 * `end` is exclusive; null for `all_time`.
 */
export function windowOf(interval: WindowInterval, now: number, timeZone: string): { start: number; end: number | null } {
  if (interval === 'all_time') return { start: 0, end: null }
  const l = localTime(now, timeZone)
  if (interval === 'daily') {
    const next = new Date(Date.UTC(l.year, l.month - 1, l.day + 1))
    return { start: localMidnight(l.year, l.month, l.day, timeZone), end: localMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone) }
  }
  if (interval === 'weekly') {
    const back = (['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const).indexOf(l.weekday)
    const first = new Date(Date.UTC(l.year, l.month - 1, l.day - back))
    const next = new Date(Date.UTC(l.year, l.month - 1, l.day - back + 7))
    return {
      start: localMidnight(first.getUTCFullYear(), first.getUTCMonth() + 1, first.getUTCDate(), timeZone),
      end: localMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone),
    }
  }
  const next = new Date(Date.UTC(l.year, l.month, 1))
  return { start: localMidnight(l.year, l.month, 1, timeZone), end: localMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, 1, timeZone) }
}

/** `HH:MM` (00:00 to 24:00) as minutes of the day. */
export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/** Whether `now` falls in the active hours: a listed local weekday, from `start` (included) to `end` (excluded). */
export function withinActiveHours(h: ActiveHours, now: number): boolean {
  const l = localTime(now, h.timeZone)
  return h.days.includes(l.weekday) && l.minutes >= minutesOf(h.start) && l.minutes < minutesOf(h.end)
}

export function judge(input: JudgeInput): Judgement {
  const { policy: p, merchant } = input
  const deny: Reason[] = []
  const add = (code: string, message: string, interval?: LimitInterval) => deny.push(interval ? { code, message, interval } : { code, message })

  // 1-2: the parties
  if (input.agent.status !== 'active') add('AGENT_NOT_ACTIVE', `The agent is ${input.agent.status}`)
  // the payee is judged by its address too: a merchant at it disabled or blocked refuses it, whether named or not
  const payee = input.payee ? payeeFindings(p, input.payee) : { disabled: false, blocked: false, unregistered: false }
  if (merchant && merchant.status !== 'active') add('MERCHANT_DISABLED', 'The merchant is disabled')
  else if (payee.disabled) add('MERCHANT_DISABLED', `The payee's address ${input.payee!.address} belongs to a disabled merchant`)
  // 3: currency
  if (!sameCurrency(input.currency, p.currency)) add('CURRENCY_NOT_ALLOWED', `The policy pays in ${p.currency}, not ${input.currency}`)
  // 4: rail and network
  if (p.allowedRails?.length && !p.allowedRails.includes(input.rail)) add('RAIL_NOT_ALLOWED', `The rail ${input.rail} is not among the policy's rails (${p.allowedRails.join(', ')})`)
  const network = input.network ?? merchant?.network ?? null
  if (p.allowedNetworks?.length) {
    if (!network) add('NETWORK_UNKNOWN', 'The policy allows only some networks and the payment names none')
    else if (!p.allowedNetworks.includes(network)) add('NETWORK_NOT_ALLOWED', `The network ${network} is not among the policy's networks (${p.allowedNetworks.join(', ')})`)
  }
  // 5-7: merchant lists and categories
  if (merchant && p.blockedMerchantIds?.includes(merchant.id)) add('MERCHANT_BLOCKED', 'The policy blocks this merchant')
  else if (payee.blocked) add('MERCHANT_BLOCKED', `The payee's address ${input.payee!.address} belongs to a merchant the policy blocks`)
  if (payee.unregistered) add('PAYEE_UNREGISTERED', `The payee's address ${input.payee!.address} is no merchant of the tenant, and the policy does not allow unregistered payees`)
  if (p.allowedMerchantIds?.length && !(merchant && p.allowedMerchantIds.includes(merchant.id))) {
    add('MERCHANT_NOT_ALLOWED', merchant ? 'The merchant is not among the policy\'s allowed merchants' : 'The policy allows only some merchants and the payment names none')
  }
  if (p.allowedCategories?.length && !(merchant?.category && p.allowedCategories.includes(merchant.category))) {
    add('CATEGORY_NOT_ALLOWED', merchant?.category ? `The category ${merchant.category} is not among the policy's categories` : 'The policy allows only some categories and the payment has none')
  }
  // 8: hours
  if (p.activeHours && !withinActiveHours(p.activeHours, input.now)) {
    add('OUTSIDE_ACTIVE_HOURS', `Payments are allowed ${p.activeHours.days.join(', ')} from ${p.activeHours.start} to ${p.activeHours.end} (${p.activeHours.timeZone})`)
  }
  // 9: count per day
  if (p.maxExecutionsPerDay != null && (input.executionsToday ?? 0) >= p.maxExecutionsPerDay) {
    add('DAILY_EXECUTIONS_EXCEEDED', `The agent has made ${input.executionsToday ?? 0} of ${p.maxExecutionsPerDay} executions allowed today`)
  }
  // 10-11: amounts
  const amount = toUnits(input.amount)
  if (amount <= 0n) add('AMOUNT_INVALID', 'The amount must be more than 0')
  for (const limit of p.limits) {
    const max = toUnits(limit.amount)
    if (limit.interval === 'per_transaction') {
      if (amount > max) add('LIMIT_EXCEEDED', `${input.amount} is over the per-transaction limit of ${limit.amount}`, 'per_transaction')
      continue
    }
    const spent = toUnits(input.spent[limit.interval] ?? '0')
    if (spent + amount > max) {
      add('LIMIT_EXCEEDED', `${fromUnits(spent)} spent plus ${input.amount} is over the ${limit.interval} limit of ${limit.amount}`, limit.interval)
    }
  }
  if (deny.length) return { decision: 'deny', reasons: deny }
  // 12: approval
  if (p.approvalMode === 'always') return { decision: 'require_approval', reasons: [{ code: 'APPROVAL_ALWAYS', message: 'The policy asks for an approval of every payment' }] }
  if (p.approvalMode === 'threshold' && p.approvalThreshold != null && amount > toUnits(p.approvalThreshold)) {
    return { decision: 'require_approval', reasons: [{ code: 'APPROVAL_THRESHOLD', message: `${input.amount} is over the approval threshold of ${p.approvalThreshold}` }] }
  }
  return { decision: 'allow', reasons: [] }
}
