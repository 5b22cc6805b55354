// Baseline: the raw argon2id rate at Slipway's cost (src/lib/passwords.ts), `IN_FLIGHT`
// hashes at a time for BENCH_SECONDS, in a process of its own. Prints hashes per second.
// ARGON2=bun measures Bun's own `Bun.password.hash` at the same cost instead, for reference:
// it made the same PHC strings but took about 3 times the CPU per hash (docs/benchmarks.md).
import { hashPassword, PASSWORD_HASH_MEMORY_KIB } from '../../../src/lib/passwords'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const inFlight = Number(process.env.IN_FLIGHT ?? 16)
const hash = process.env.ARGON2 === 'bun'
  ? (password: string) => Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: PASSWORD_HASH_MEMORY_KIB, timeCost: 2 })
  : hashPassword
let n = 0
const end = performance.now() + seconds * 1000
const t0 = performance.now()
const cpu0 = process.cpuUsage()
await Promise.all(Array.from({ length: inFlight }, async () => {
  while (performance.now() < end) {
    await hash(`Bench-passw0rd-${n}`)
    n++
  }
}))
const cpu = process.cpuUsage(cpu0)
console.log(JSON.stringify({ rate: n / ((performance.now() - t0) / 1000), cpuUsPerHash: (cpu.user + cpu.system) / n }))
