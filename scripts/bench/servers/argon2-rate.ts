// Baseline: the raw argon2id rate at Slipway's cost (src/lib/passwords.ts), `IN_FLIGHT`
// hashes at a time for BENCH_SECONDS, in a process of its own. Prints hashes per second.
import { hashPassword } from '../../../src/lib/passwords'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const inFlight = Number(process.env.IN_FLIGHT ?? 16)
let n = 0
const end = performance.now() + seconds * 1000
const t0 = performance.now()
const cpu0 = process.cpuUsage()
await Promise.all(Array.from({ length: inFlight }, async () => {
  while (performance.now() < end) {
    await hashPassword(`Bench-passw0rd-${n}`)
    n++
  }
}))
const cpu = process.cpuUsage(cpu0)
console.log(JSON.stringify({ rate: n / ((performance.now() - t0) / 1000), cpuUsPerHash: (cpu.user + cpu.system) / n }))
