/**
 * Prometheus metrics: HTTP requests by route and status with a latency histogram,
 * background jobs, webhook deliveries, and calls to chains and partners. Route labels
 * are route patterns (`/v1/users/:id`), never raw paths, so ids do not multiply series.
 *
 * The series are kept here, in plain maps: observing costs a map lookup and a slot, on
 * every request. prom-client is loaded with the first scrape and only formats: its
 * registry reads each metric through `get()`, the same shape its own metrics return.
 * Its own metric objects hashed and validated labels on every observation (more than the
 * `/health` request they measured), and loading it at start held about 4 MiB in every
 * process that is never scraped.
 */
import type { Registry } from 'prom-client'

type Labels = Record<string, string>
interface Sample {
  labels: Record<string, string | number>
  value: number
  metricName?: string
}

/** What prom-client's registry reads of a metric. */
interface Exported {
  readonly name: string
  get(): { name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }
}

/** A series per combination of label values, found by the values joined (label values never hold NUL). */
class Series<T> {
  private readonly map = new Map<string, { labels: Labels; data: T }>()
  constructor(private readonly labelNames: readonly string[], private readonly make: () => T) {}
  of(labels: Labels): T {
    let key = ''
    for (const n of this.labelNames) key += `${labels[n] ?? ''}\u0000`
    let s = this.map.get(key)
    if (!s) {
      const own: Labels = {}
      for (const n of this.labelNames) own[n] = labels[n] ?? ''
      s = { labels: own, data: this.make() }
      this.map.set(key, s)
    }
    return s.data
  }
  *entries(): Iterable<{ labels: Labels; data: T }> {
    yield* this.map.values()
  }
}

class Counter implements Exported {
  private readonly series: Series<{ value: number }>
  constructor(readonly name: string, private readonly help: string, labelNames: readonly string[]) {
    this.series = new Series(labelNames, () => ({ value: 0 }))
  }
  inc(labels: Labels) {
    this.series.of(labels).value++
  }
  get() {
    return { name: this.name, help: this.help, type: 'counter', values: [...this.series.entries()].map((s) => ({ labels: s.labels, value: s.data.value })), aggregator: 'sum' as const }
  }
}

class Gauge implements Exported {
  private readonly series: Series<{ value: number }>
  constructor(readonly name: string, private readonly help: string, labelNames: readonly string[], private readonly read?: () => number,
    private readonly type: 'gauge' | 'counter' = 'gauge') {
    this.series = new Series(labelNames, () => ({ value: 0 }))
  }
  set(labels: Labels, value: number) {
    this.series.of(labels).value = value
  }
  get() {
    if (this.read) this.set({}, this.read())
    return { name: this.name, help: this.help, type: this.type, values: [...this.series.entries()].map((s) => ({ labels: s.labels, value: s.data.value })), aggregator: 'sum' as const }
  }
}

interface Buckets {
  /** per bucket, observations at or below its bound (not yet cumulative) */
  counts: Float64Array
  sum: number
  count: number
}

class Histogram implements Exported {
  constructor(readonly name: string, private readonly help: string, private readonly bounds: readonly number[]) {}
  fresh(): Buckets {
    return { counts: new Float64Array(this.bounds.length), sum: 0, count: 0 }
  }
  observe(b: Buckets, seconds: number) {
    let i = 0
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++
    if (i < this.bounds.length) b.counts[i]!++
    b.sum += seconds
    b.count++
  }
  /** the series to export; each subclass keeps its own */
  protected series(): Iterable<{ labels: Labels; data: Buckets }> {
    return []
  }
  get() {
    const values: Sample[] = []
    for (const { labels, data } of this.series()) {
      let cumulative = 0
      this.bounds.forEach((le, i) => {
        cumulative += data.counts[i]!
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` })
      })
      values.push({ labels: { le: '+Inf', ...labels }, value: data.count, metricName: `${this.name}_bucket` })
      values.push({ labels, value: data.sum, metricName: `${this.name}_sum` })
      values.push({ labels, value: data.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' as const }
  }
}

/** A histogram by any labels. */
class LabelledHistogram extends Histogram {
  private readonly byLabels: Series<Buckets>
  constructor(name: string, help: string, bounds: readonly number[], labelNames: readonly string[]) {
    super(name, help, bounds)
    this.byLabels = new Series(labelNames, () => this.fresh())
  }
  record(labels: Labels, seconds: number) {
    this.observe(this.byLabels.of(labels), seconds)
  }
  protected override series() {
    return this.byLabels.entries()
  }
}

/**
 * `slipway_http_request_duration_seconds`, observed on every request: route, then
 * method, then status, so the strings Elysia hands over every time (route patterns,
 * methods) are looked up as they are and no key is built.
 */
class RequestHistogram extends Histogram {
  private readonly byRoute = new Map<string, Map<string, Map<number, { labels: Labels; data: Buckets }>>>()
  record(method: string, route: string, status: number, seconds: number) {
    this.observe(this.buckets(method, route, status), seconds)
  }
  buckets(method: string, route: string, status: number): Buckets {
    let byMethod = this.byRoute.get(route)
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()))
    let byStatus = byMethod.get(method)
    if (!byStatus) byMethod.set(method, (byStatus = new Map()))
    let s = byStatus.get(status)
    if (!s) byStatus.set(status, (s = { labels: { method, route, status: String(status) }, data: this.fresh() }))
    return s.data
  }
  protected override *series() {
    for (const byMethod of this.byRoute.values()) for (const byStatus of byMethod.values()) yield* byStatus.values()
  }
}

export class Metrics {
  private readonly requests = new RequestHistogram(
    'slipway_http_request_duration_seconds',
    'HTTP requests by route, method and status',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  )
  private readonly jobs = new Counter('slipway_jobs_total', 'Background jobs run, by topic and outcome', ['topic', 'outcome'])
  private readonly deliveries = new Counter('slipway_webhook_deliveries_total', 'Webhook delivery attempts by outcome', ['outcome'])
  private readonly external = new LabelledHistogram(
    'slipway_external_call_duration_seconds',
    'Calls to chains and partners by system and outcome',
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    ['system', 'outcome'],
  )
  readonly queueDepth = new Gauge('slipway_queue_depth', 'Jobs waiting, by state', ['state'])
  private readonly relayerLowGas = new Counter('slipway_swap_relayer_low_gas_total', 'Gasless swaps refused because the relayer could not pay the gas, by network', ['network'])
  private readonly sellOverdue = new Counter(
    'slipway_ramp_sell_overdue_total',
    'Attempts at a bank ramp sell still not taken after about 40 minutes (the payout\'s crypto already at the partner), by environment',
    ['environment'],
  )
  private readonly paymasterLow = new Counter(
    'slipway_paymaster_deposit_low_total',
    'Sponsored operations refused because the paymaster\'s EntryPoint deposit was below PAYMASTER_MIN_DEPOSIT_WEI, by network',
    ['network'],
  )
  private readonly exported: Exported[] = [this.requests, this.jobs, this.deliveries, this.external, this.queueDepth, this.relayerLowGas, this.sellOverdue, this.paymasterLow]
  private collectors: Array<() => Promise<void>> = []
  private registry: Promise<Registry> | undefined

  /**
   * An embedded replica's lag (seconds since its last successful pull from the primary;
   * -1 before the first) and whether the primary answers. Read at scrape time.
   */
  trackReplica(read: () => { lagMs: number; primaryReachable: boolean; pulls?: number; framesPulled?: number; pullMs?: number }) {
    this.exported.push(
      new Gauge('slipway_replica_lag_seconds', 'Seconds since the embedded replica last pulled from the primary (-1: never)', [], () => {
        const s = read()
        return s.lagMs < 0 ? -1 : s.lagMs / 1000
      }),
      new Gauge('slipway_replica_primary_reachable', '1 while the primary answers this replica, 0 while it does not', [], () => (read().primaryReachable ? 1 : 0)),
      new Gauge('slipway_replica_pulls_total', 'Pulls from the primary this replica made', [], () => read().pulls ?? 0, 'counter'),
      new Gauge('slipway_replica_frames_pulled_total', 'WAL frames this replica pulled from the primary', [], () => read().framesPulled ?? 0, 'counter'),
      new Gauge('slipway_replica_pull_seconds_total', 'Seconds this replica spent pulling', [], () => (read().pullMs ?? 0) / 1000, 'counter'),
    )
  }

  request(method: string, route: string, status: number, seconds: number) {
    this.requests.record(method, route, status, seconds)
  }
  /** `request` for one method, route and status, fixed in advance: its series found once, at the first observation. */
  requestOf(method: string, route: string, status: number): (seconds: number) => void {
    let series: Buckets | undefined
    return (seconds) => this.requests.observe((series ??= this.requests.buckets(method, route, status)), seconds)
  }
  job(topic: string, outcome: 'completed' | 'failed') {
    this.jobs.inc({ topic, outcome })
  }
  delivery(outcome: string) {
    this.deliveries.inc({ outcome })
  }
  /** A gasless swap refused because the relayer's native balance cannot pay its gas (an operator tops it up). */
  swapRelayerLowGas(network: string) {
    this.relayerLowGas.inc({ network })
  }
  /** A sponsored operation refused because the paymaster's deposit is below its threshold (an operator runs `slipway paymaster deposit`). */
  paymasterDepositLow(network: string) {
    this.paymasterLow.inc({ network })
  }
  /** A payout's sell the partner has not taken for about 40 minutes, asked again (an operator looks at the partner). */
  rampSellOverdue(environment: string) {
    this.sellOverdue.inc({ environment })
  }
  /** Times a call to an external system, labelled `ok` or `error`. */
  async externalCall<T>(system: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now()
    try {
      const out = await fn()
      this.external.record({ system, outcome: 'ok' }, (performance.now() - t0) / 1000)
      return out
    } catch (err) {
      this.external.record({ system, outcome: 'error' }, (performance.now() - t0) / 1000)
      throw err
    }
  }
  /**
   * A fetch that times each call to an external system: `ok` for a 2xx-3xx answer,
   * `error` for any other status, a refused connection or a timeout.
   */
  fetcher(system: string, base: typeof fetch = fetch): typeof fetch {
    const timed = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      const t0 = performance.now()
      try {
        const res = await base(input, init)
        this.external.record({ system, outcome: res.ok || (res.status >= 300 && res.status < 400) ? 'ok' : 'error' }, (performance.now() - t0) / 1000)
        return res
      } catch (err) {
        this.external.record({ system, outcome: 'error' }, (performance.now() - t0) / 1000)
        throw err
      }
    }
    return timed as typeof fetch
  }
  /** Gauges read at scrape time (queue depth). */
  onCollect(fn: () => Promise<void>) {
    this.collectors.push(fn)
  }
  /** The Prometheus text format (prom-client formats it; loaded with the first scrape). */
  async render(): Promise<string> {
    await Promise.all(this.collectors.map((c) => c().catch(() => undefined)))
    this.registry ??= import('prom-client').then(({ default: client }) => new client.Registry())
    const registry = await this.registry
    for (const m of this.exported) if (!registry.getSingleMetric(m.name)) registry.registerMetric(m as never)
    return registry.metrics()
  }
}
