/**
 * Prometheus metrics (prom-client): HTTP requests by route and status with a latency
 * histogram, background jobs, webhook deliveries, and calls to chains and partners.
 * Route labels are route patterns (`/v1/users/:id`), never raw paths, so ids do not
 * multiply series.
 */
import client from 'prom-client'

export class Metrics {
  readonly registry = new client.Registry()
  private readonly requests = new RequestHistogram(this.registry)
  private readonly jobs = new client.Counter({ name: 'slipway_jobs_total', help: 'Background jobs run, by topic and outcome', labelNames: ['topic', 'outcome'], registers: [this.registry] })
  private readonly deliveries = new client.Counter({ name: 'slipway_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'], registers: [this.registry] })
  private readonly external = new client.Histogram({
    name: 'slipway_external_call_duration_seconds', help: 'Calls to chains and partners by system and outcome',
    labelNames: ['system', 'outcome'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry],
  })
  readonly queueDepth = new client.Gauge({ name: 'slipway_queue_depth', help: 'Jobs waiting, by state', labelNames: ['state'], registers: [this.registry] })
  private collectors: Array<() => Promise<void>> = []

  /**
   * An embedded replica's lag (seconds since its last successful pull from the primary;
   * -1 before the first) and whether the primary answers. Read at scrape time.
   */
  trackReplica(read: () => { lagMs: number; primaryReachable: boolean }) {
    new client.Gauge({
      name: 'slipway_replica_lag_seconds', help: 'Seconds since the embedded replica last pulled from the primary (-1: never)', registers: [this.registry],
      collect() {
        const s = read()
        this.set(s.lagMs < 0 ? -1 : s.lagMs / 1000)
      },
    })
    new client.Gauge({
      name: 'slipway_replica_primary_reachable', help: '1 while the primary answers this replica, 0 while it does not', registers: [this.registry],
      collect() {
        this.set(read().primaryReachable ? 1 : 0)
      },
    })
  }

  request(method: string, route: string, status: number, seconds: number) {
    this.requests.observe(method, route, status, seconds)
  }
  job(topic: string, outcome: 'completed' | 'failed') {
    this.jobs.inc({ topic, outcome })
  }
  delivery(outcome: string) {
    this.deliveries.inc({ outcome })
  }
  /** Times a call to an external system, labelled `ok` or `error`. */
  async externalCall<T>(system: string, fn: () => Promise<T>): Promise<T> {
    const end = this.external.startTimer({ system })
    try {
      const out = await fn()
      end({ outcome: 'ok' })
      return out
    } catch (err) {
      end({ outcome: 'error' })
      throw err
    }
  }
  /**
   * A fetch that times each call to an external system: `ok` for a 2xx-3xx answer,
   * `error` for any other status, a refused connection or a timeout.
   */
  fetcher(system: string, base: typeof fetch = fetch): typeof fetch {
    const timed = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      const end = this.external.startTimer({ system })
      try {
        const res = await base(input, init)
        end({ outcome: res.ok || (res.status >= 300 && res.status < 400) ? 'ok' : 'error' })
        return res
      } catch (err) {
        end({ outcome: 'error' })
        throw err
      }
    }
    return timed as typeof fetch
  }
  /** Gauges read at scrape time (queue depth). */
  onCollect(fn: () => Promise<void>) {
    this.collectors.push(fn)
  }
  async render(): Promise<string> {
    await Promise.all(this.collectors.map((c) => c().catch(() => undefined)))
    return this.registry.metrics()
  }
}

const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

interface RequestSeries {
  labels: { method: string; route: string; status: string }
  /** per bucket, observations at or below its bound (not yet cumulative) */
  counts: Float64Array
  sum: number
  count: number
}

/**
 * `slipway_http_request_duration_seconds`: a histogram observed on every request, so it
 * keeps its own series (one `Map` lookup and one array slot per observation) and hands
 * prom-client's registry the same values a prom-client Histogram would, at scrape time.
 * A prom-client Histogram hashes and validates its labels on every observation, which
 * cost more than the `/health` request it measured.
 */
class RequestHistogram {
  readonly name = 'slipway_http_request_duration_seconds'
  readonly help = 'HTTP requests by route, method and status'
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  /** route, then method, then status: route patterns and methods are the same strings request after request, so no key is built */
  private readonly series = new Map<string, Map<string, Map<number, RequestSeries>>>()
  constructor(registry: client.Registry) {
    registry.registerMetric(this as unknown as client.Metric)
  }
  observe(method: string, route: string, status: number, seconds: number) {
    let byMethod = this.series.get(route)
    if (!byMethod) this.series.set(route, (byMethod = new Map()))
    let byStatus = byMethod.get(method)
    if (!byStatus) byMethod.set(method, (byStatus = new Map()))
    let s = byStatus.get(status)
    if (!s) {
      s = { labels: { method, route, status: String(status) }, counts: new Float64Array(REQUEST_BUCKETS.length), sum: 0, count: 0 }
      byStatus.set(status, s)
    }
    let i = 0
    while (i < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[i]!) i++
    if (i < REQUEST_BUCKETS.length) s.counts[i]!++
    s.sum += seconds
    s.count++
  }
  /** What prom-client's registry reads of a metric (the shape its own Histogram returns). */
  get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = []
    for (const s of [...this.series.values()].flatMap((m) => [...m.values()]).flatMap((m) => [...m.values()])) {
      let cumulative = 0
      REQUEST_BUCKETS.forEach((le, i) => {
        cumulative += s.counts[i]!
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` })
      })
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` })
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` })
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }
  reset() {
    this.series.clear()
  }
}
