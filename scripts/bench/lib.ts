/**
 * Shared pieces of the benchmarks: spawning servers, driving load with wrk (a C load
 * generator: one thread keeps up with 100k+ req/s, where a Node one needs a core of its
 * own and caps both sides), printing ratios, and sampling resident memory.
 */
import { createHash, createHmac } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Result {
  name: string
  rps: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  /** the slowest answer, ms (when wrk reported it) */
  max?: number
  /** the server's CPU time (all its threads, user + system) per request, in microseconds, when its pid was given */
  cpuUs?: number
  /** how many requests were answered (wrk's count), when measured with wrk */
  requests?: number
  /** wrk's own CPU time per request, in microseconds (it runs on the same cores as the server) */
  generatorCpuUs?: number
}

/** The median of numbers (the upper one of the middle two for an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!

/**
 * Runs of one scenario as one line: the median of each figure across the runs (rate, p50,
 * p99 and CPU each on their own), and every error of every run. On this shared 2-core VM a
 * 5-second figure moves by a fifth between runs, p99 by half: a median of several runs,
 * alternating with the baseline's, cannot be made by one lucky or unlucky run.
 */
export function medianOf(runs: Result[]): Result {
  const cpu = runs.map((r) => r.cpuUs).filter((v): v is number => v !== undefined)
  return {
    name: runs[0]!.name,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    cpuUs: cpu.length === runs.length ? median(cpu) : undefined,
  }
}

/** Runs with the server's resident memory sampled (rssDuring) as one: the median run, the median of medians and the highest peak. */
export function medianWithMemory(runs: Array<{ result: Result; median: number; peak: number }>) {
  return { result: medianOf(runs.map((r) => r.result)), median: median(runs.map((r) => r.median)), peak: Math.max(...runs.map((r) => r.peak)) }
}

/** Seconds per load (BENCH_SECONDS, 5 by default). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

/** Exits with how to install wrk when it is missing. */
export function requireWrk(): string {
  const wrk = Bun.which('wrk')
  if (!wrk) {
    console.error('npm run bench needs wrk, a C HTTP load generator, on the PATH.\n  Debian/Ubuntu: sudo apt-get install -y wrk\n  macOS: brew install wrk\n  other systems: build https://github.com/wg/wrk')
    process.exit(2)
  }
  return wrk
}

/** A port nothing listens on now (the OS picks it). */
export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

export type Server = { url: string; proc: ReturnType<typeof Bun.spawn> }

export async function spawnServer(cmd: string[], env: Record<string, string>, healthPath = '/health'): Promise<Server> {
  const port = freePort()
  const argv = cmd[0]!.startsWith('/') ? cmd : [process.execPath, ...cmd]
  const proc = Bun.spawn(argv, { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdout: 'ignore', stderr: 'inherit' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 400; i++) {
    try {
      const res = await fetch(url + healthPath)
      if (res.status < 500) return { url, proc }
    } catch { /* starting */ }
    await Bun.sleep(25)
  }
  proc.kill()
  throw new Error(`${cmd.join(' ')} did not start`)
}

// Made on the first load, removed at exit: importing this file (the chaos run takes freePort
// from it) must leave nothing behind.
let scriptDir: string | undefined
const wrkScriptDir = () => {
  if (!scriptDir) {
    const dir = (scriptDir = mkdtempSync(join(tmpdir(), 'slipway-wrk-')))
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  return scriptDir
}
let scripts = 0

/** Lua lines that print wrk's summary as one JSON line (latency in microseconds). */
const DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nRESULT {"requests":%d,"duration":%d,"p50":%d,"p99":%d,"non2xx":%d,"errors":%d,"max":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout, latency.max))
end
`

export interface LoadOptions {
  headers?: Record<string, string>
  /** the same method and body on every request */
  method?: string
  body?: string
  connections?: number
  seconds?: number
  /**
   * Requests that each may be sent once (signed requests: a signature is refused on replay).
   * wrk sends them in order and stops the load when they run out.
   */
  requests?: Array<{ method: string; path: string; headers: Record<string, string>; body?: string }>
  /** the server's process id: its CPU time per request is reported too (steadier than req/s on a shared machine) */
  pid?: number
}

/** One wrk run: 1 thread, 64 connections by default, SECONDS long. */
export async function load(name: string, url: string, opts: LoadOptions = {}): Promise<Result> {
  const wrk = requireWrk()
  let lua = DONE
  if (opts.method) lua += `\nwrk.method = ${JSON.stringify(opts.method)}\n`
  if (opts.body !== undefined) lua += `\nwrk.body = ${JSON.stringify(opts.body)}\n`
  if (opts.requests) {
    const q = (s: string) => JSON.stringify(s) // a JSON string literal is a valid Lua string literal for ASCII text
    // wrk.host is not set yet while the script loads: the Host header is written here
    const host = new URL(url).host
    const items = opts.requests.map((r) => `wrk.format(${q(r.method)}, ${q(r.path)}, {${Object.entries({ Host: host, ...r.headers }).map(([k, v]) => `[${q(k)}]=${q(v)}`).join(',')}}, ${r.body === undefined ? 'nil' : q(r.body)})`)
    lua += `\nlocal reqs = {\n${items.join(',\n')}\n}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  if i > #reqs then wrk.thread:stop() ; i = #reqs end\n  return reqs[i]\nend\n`
  }
  const file = join(wrkScriptDir(), `s${scripts++}.lua`)
  writeFileSync(file, lua)
  const args = [wrk, '-t1', `-c${opts.connections ?? 64}`, `-d${opts.seconds ?? SECONDS}s`, '--timeout', '10s', '-s', file]
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`)
  args.push(url)
  const cpu0 = opts.pid ? await cpuMs(opts.pid) : undefined
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
  const out = await new Response(proc.stdout).text()
  const cpu1 = opts.pid ? await cpuMs(opts.pid) : undefined
  if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${await new Response(proc.stderr).text()}`)
  const line = /RESULT (\{.*\})/.exec(out)?.[1]
  if (!line) throw new Error(`wrk printed no result:\n${out}`)
  const r = JSON.parse(line) as { requests: number; duration: number; p50: number; p99: number; non2xx: number; errors: number; max: number }
  const cpuUs = cpu0 !== undefined && cpu1 !== undefined && r.requests > 0 ? ((cpu1 - cpu0) * 1000) / r.requests : undefined
  const generator = proc.resourceUsage()?.cpuTime.total
  const generatorCpuUs = generator !== undefined && r.requests > 0 ? Number(generator) / r.requests : undefined
  return { name, rps: r.requests / (r.duration / 1e6), p50: r.p50 / 1000, p99: r.p99 / 1000, max: r.max / 1000, errors: r.errors, non2xx: r.non2xx, cpuUs, generatorCpuUs, requests: r.requests }
}

/** The bare Bun.serve check: below this the generator (or a busy machine) is the limit, and the run says so. */
export const GENERATOR_FLOOR = 90_000

export function generatorVerdict(bare: Result): boolean {
  const ok = bare.rps >= GENERATOR_FLOOR
  console.log(ok
    ? `\ngenerator check: bare Bun.serve reached ${bare.rps.toFixed(0)} req/s (floor ${GENERATOR_FLOOR}): the generator is not the limit.`
    : `\nINVALID RUN: bare Bun.serve reached only ${bare.rps.toFixed(0)} req/s (floor ${GENERATOR_FLOOR}): the load generator or another process on this machine is the limit; ratios below are not meaningful.`)
  return ok
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1))

/**
 * A row compared with its baseline. With `rounds` (the baseline's run and the scenario's run
 * of each round, alternating), the ratios are the medians of the rounds' own ratios: the
 * machine's speed drifts between rounds, and within a round both sides saw the same machine.
 */
export interface ReportRow {
  result: Result
  baseline?: Result
  target?: number
  p99Factor?: number
  rounds?: ReadonlyArray<readonly [baseline: Result, scenario: Result]>
}

/**
 * One target of issue 42 beside its figure: printed as a line `TARGET <name>: <figure> (target <goal>): met|NOT met`,
 * which `npm run bench` (run.ts) collects from every suite and prints again together at the end.
 */
export function target(name: string, figure: string, goal: string, met: boolean): boolean {
  console.log(`TARGET ${name}: ${figure} (target ${goal}): ${met ? 'met' : 'NOT met'}`)
  return met
}

export function report(rows: ReportRow[]) {
  const pad = (s: string, n: number) => s.padEnd(n)
  console.log(`\n${pad('scenario', 48)}${pad('req/s', 10)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('CPU µs/req', 12)}${pad('non-2xx', 9)}ratio to baseline`)
  let met = true
  for (const { result: r, baseline: b, target, p99Factor, rounds } of rows) {
    const ratio = !b ? undefined : rounds ? median(rounds.map(([x, y]) => y.rps / x.rps)) : r.rps / b.rps
    // a baseline without latencies (the raw argon2id rate: no requests) has no p99 to compare
    const p99Ratio = !b ? NaN : rounds ? median(rounds.map(([x, y]) => y.p99 / x.p99)) : r.p99 / b.p99
    let verdict = ratio === undefined ? 'baseline' : `${(ratio * 100).toFixed(0)}% of ${b!.name}${rounds ? ` (median of ${rounds.length} rounds)` : ''}`
    if (ratio !== undefined && target) {
      const p99ok = !p99Factor || p99Ratio <= p99Factor
      const ok = ratio >= target && p99ok
      if (!ok) met = false
      const p99 = Number.isFinite(p99Ratio) ? `; p99 ${p99Ratio.toFixed(1)}×` : ''
      verdict += `${p99} (target ≥ ${target * 100}%${p99Factor ? `, p99 ≤ ${p99Factor}×` : ''}: ${ok ? 'met' : 'NOT met'})`
    }
    if (ratio !== undefined && r.cpuUs !== undefined && b!.cpuUs !== undefined) verdict += `; CPU per request ${(r.cpuUs / b!.cpuUs).toFixed(2)}× the baseline's`
    console.log(`${pad(r.name, 48)}${pad(r.rps.toFixed(0), 10)}${pad(ms(r.p50), 8)}${pad(ms(r.p99), 8)}${pad(r.cpuUs === undefined ? '' : r.cpuUs.toFixed(r.cpuUs < 100 ? 1 : 0), 12)}${pad(String(r.non2xx + r.errors), 9)}${verdict}`)
  }
  return met
}

/** CPU time a process has used so far (user + system, all threads), in ms, from /proc (Linux; clock ticks of 10 ms). */
export async function cpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await Bun.file(`/proc/${pid}/stat`).text()
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
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
  return { result, median: samples.length ? median(samples) : NaN, peak: samples.length ? Math.max(...samples) : NaN }
}

/** Slipway's settings for a benchmark: a fresh file database in `dir`, fixed keys, the bench admin; `extra` beside (a devnet's). */
export function benchEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...extra,
    DATABASE_URL: `file:${join(dir, 'bench.db')}`,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
    BOOTSTRAP_ADMIN_USERNAME: 'bench',
    BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd',
    LOG_LEVEL: 'warn',
  }
}

/** POSTs to a bench's Slipway at `url`: `call` with JSON and headers, `signed` as the tenant (HMAC of the request); both throw on an answer of 300 or more. */
export function apiCalls(url: string) {
  const answer = async (path: string, res: Response) => {
    const out = await res.json() as any
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(out).slice(0, 300)}`)
    return out
  }
  const call = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    answer(path, await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }))
  const signed = async (tenant: { apiKey: string; apiSecret: string }, path: string, body: unknown) => {
    const text = JSON.stringify(body)
    const ts = String(Math.floor(Date.now() / 1000))
    const sig = createHmac('sha256', tenant.apiSecret).update(`POST\n${path}\n${ts}\n${createHash('sha256').update(text).digest('hex')}`).digest('hex')
    const headers = { 'content-type': 'application/json', 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': ts, 'x-signature': sig }
    return answer(path, await fetch(url + path, { method: 'POST', headers, body: text }))
  }
  return { call, signed }
}

/** The pid of the sqld listening on `port` (from /proc), for its CPU time. */
export function sqldPid(port: number): number | undefined {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0')
      if (cmd.some((a) => a.endsWith('sqld')) && cmd.includes(`127.0.0.1:${port}`)) return Number(d)
    } catch { /* gone */ }
  }
  return undefined
}

/** A tenant made by the bench admin (with `settings`) and a user registered with a tenant-signed request (`U`, its bearer header). */
export async function benchUser(url: string, name: string, settings: Record<string, unknown> = {}) {
  const { call, signed } = apiCalls(url)
  const admin = await call('/v1/auth/admin/login', { username: 'bench', password: 'Bench-passw0rd' })
  const tenant = await call('/v1/admin/tenants', { name, settings }, { authorization: `Bearer ${admin.accessToken}` })
  const username = `${name.replace(/[^A-Za-z0-9_]/g, '_')}_user`
  const user = await signed(tenant, '/v1/auth/register', { username, email: `${name}@example.com`, password: 'Bench-passw0rd' }) as { accessToken: string; user: { id: string } }
  return { call, signed, admin, tenant, user, U: { authorization: `Bearer ${user.accessToken}` } }
}

/** `benchUser`, with a custodial Sepolia wallet of the user's and a tenant administrator signed in (`J`, its header): an agent payment's parties. */
export async function benchPayer(url: string, name: string) {
  const b = await benchUser(url, name)
  await b.call('/v1/users/', { username: `${name}_ta`, password: 'Bench-passw0rd-admin', role: 'tenantadmin', tenantId: b.tenant.id }, { authorization: `Bearer ${b.admin.accessToken}` })
  const ta = await b.signed(b.tenant, '/v1/auth/login', { username: `${name}_ta`, password: 'Bench-passw0rd-admin' })
  const wallet = await b.call('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, b.U)
  return { ...b, J: { authorization: `Bearer ${ta.accessToken}` }, wallet }
}
