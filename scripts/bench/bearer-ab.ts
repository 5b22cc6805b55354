/**
 * The bearer read over HTTP, A/B: Slipway from two source trees (BASE_DIR, this tree) beside the
 * floor (servers/bare-auth-native.ts), all three on one database file, wrk rounds alternating
 * floor, base, this tree. Prints each side's CPU time per request (all threads, /proc) and rate,
 * and the medians of the rounds' own ratios to the floor. CPU per request is the figure to trust
 * on a busy machine; the rates only on a quiet one.
 *
 *   BASE_DIR=/tmp/slipway-base BENCH_SECONDS=3 BENCH_ROUNDS=5 bun scripts/bench/bearer-ab.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { benchEnv, benchUser, load, median, spawnServer, type Result, type Server } from './lib'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const baseDir = process.env.BASE_DIR
const dir = mkdtempSync(join(tmpdir(), 'slipway-bearer-ab-'))
const env = { ...benchEnv(dir), TRUSTED_PROXIES: '127.0.0.1', LOG_LEVEL: 'info' }
const servers: Server[] = []
try {
  const here = await spawnServer([process.execPath, resolve(import.meta.dir, '../../src/index.ts')], env)
  servers.push(here)
  const { user } = await benchUser(here.url, 'bearer-ab')
  const path = `/v1/users/${user.user.id}`
  const floor = await spawnServer([process.execPath, resolve(import.meta.dir, 'servers/bare-auth-native.ts')], env, '/')
  servers.push(floor)
  const sides: Array<[string, Server]> = [['floor', floor]]
  if (baseDir) {
    const base = await spawnServer([process.execPath, resolve(baseDir, 'src/index.ts')], env)
    servers.push(base)
    sides.push(['base', base])
  }
  sides.push(['this', here])
  const headers = { authorization: `Bearer ${user.accessToken}` }
  for (const [name, s] of sides) {
    const res = await fetch(s.url + path, { headers })
    if (res.status !== 200) throw new Error(`${name} answered ${res.status}`)
    await load(`warm ${name}`, s.url + path, { headers, seconds: 1 })
  }
  const runs: Record<string, Result[]> = {}
  for (let k = 0; k < ROUNDS; k++) {
    for (const [name, s] of sides) (runs[name] ??= []).push(await load(name, s.url + path, { headers, seconds: SECONDS, pid: s.proc.pid }))
    const line = sides.map(([name]) => `${name} ${runs[name]![k]!.cpuUs!.toFixed(1)} µs ${runs[name]![k]!.rps.toFixed(0)}/s`).join(' | ')
    console.log(`round ${k + 1}: ${line}  (load ${(await Bun.file('/proc/loadavg').text()).split(' ')[0]})`)
  }
  for (const [name] of sides) {
    if (name === 'floor') continue
    const cpu = median(runs[name]!.map((r, i) => r.cpuUs! / runs.floor![i]!.cpuUs!))
    const rate = median(runs[name]!.map((r, i) => r.rps / runs.floor![i]!.rps))
    const errs = runs[name]!.reduce((n, r) => n + r.errors + r.non2xx, 0)
    console.log(`${name}: CPU ${median(runs[name]!.map((r) => r.cpuUs!)).toFixed(1)} µs/req, ${cpu.toFixed(3)}× the floor's (median of rounds); rate ${(rate * 100).toFixed(0)}% of the floor's; errors ${errs}`)
  }
  console.log(`floor: CPU ${median(runs.floor!.map((r) => r.cpuUs!)).toFixed(1)} µs/req`)
} finally {
  for (const s of servers) s.proc.kill()
  rmSync(dir, { recursive: true, force: true })
}
