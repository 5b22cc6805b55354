/** Shared pieces of the benchmarks: spawning servers, running autocannon, printing ratios. */
import autocannon from 'autocannon'

export interface Result {
  name: string
  rps: number
  p50: number
  p99: number
  errors: number
  non2xx: number
}

/** A port nothing listens on now (the OS picks it). */
export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

export async function spawnServer(script: string[], env: Record<string, string>, healthPath = '/health'): Promise<{ url: string; proc: ReturnType<typeof Bun.spawn> }> {
  const port = freePort()
  const proc = Bun.spawn([process.execPath, ...script], { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdout: 'ignore', stderr: 'inherit' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(url + healthPath)
      if (res.status < 500) return { url, proc }
    } catch { /* starting */ }
    await Bun.sleep(50)
  }
  proc.kill()
  throw new Error(`${script.join(' ')} did not start`)
}

export function load(name: string, opts: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 64, duration: Number(process.env.BENCH_SECONDS ?? 5), ...opts }, (err, r) => {
      if (err) return reject(err)
      resolve({ name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx })
    })
  })
}

export function report(rows: Array<{ result: Result; baseline?: Result; target?: number }>) {
  const pad = (s: string, n: number) => s.padEnd(n)
  console.log(`\n${pad('scenario', 44)}${pad('req/s', 10)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('non-2xx', 9)}ratio to baseline`)
  for (const { result: r, baseline: b, target } of rows) {
    const ratio = b ? r.rps / b.rps : undefined
    const verdict = ratio === undefined ? '' : `${(ratio * 100).toFixed(0)}% of ${b!.name}${target ? (ratio >= target ? `  (target ${target * 100}%: met)` : `  (target ${target * 100}%: NOT met)`) : ''}`
    console.log(`${pad(r.name, 44)}${pad(r.rps.toFixed(0), 10)}${pad(String(r.p50), 8)}${pad(String(r.p99), 8)}${pad(String(r.non2xx + r.errors), 9)}${verdict}`)
  }
}

/** Resident memory of a process in MiB, from /proc (Linux). */
export async function rssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text()
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1])
    return kb / 1024
  } catch {
    return undefined
  }
}

/** Resident memory sampled every 250 ms while `during` runs: the median and the peak, in MiB. */
export async function rssDuring<T>(pid: number, during: Promise<T>): Promise<{ result: T; median: number; peak: number }> {
  const samples: number[] = []
  let done = false
  const sampler = (async () => {
    while (!done) {
      await Bun.sleep(250)
      const v = await rssMiB(pid)
      if (v !== undefined && !done) samples.push(v)
    }
  })()
  const result = await during
  done = true
  await sampler
  if (process.env.BENCH_RSS_TRACE) console.log(`rss samples: ${samples.map((v) => v.toFixed(0)).join(' ')}`)
  samples.sort((a, b) => a - b)
  return { result, median: samples[samples.length >> 1] ?? NaN, peak: samples.at(-1) ?? NaN }
}
