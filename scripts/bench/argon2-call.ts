/**
 * What one argon2id hash at Slipway's cost costs the JavaScript thread, timed with the thread's exact
 * clock (thread-clock.ts), one hash at a time, the ways alternating within each round: the direct call
 * into @node-rs/argon2's `hash` (as src/lib/passwords.ts does; it queues the hash on Bun's pool), and
 * a worker of our own (servers/argon2-worker.ts) sent the password with `postMessage`, its answer
 * taken in a message handler. Not part of `npm run bench` (docs/benchmarks.md, "Signed registration").
 *
 *   bun scripts/bench/argon2-call.ts          (BENCH_N=150 hashes each way a round, BENCH_ROUNDS=2)
 */
import { Algorithm, hash } from '@node-rs/argon2'
import { PASSWORD_HASH_MEMORY_KIB } from '../../src/lib/passwords'
import { threadMicros } from './thread-clock'

const N = Number(process.env.BENCH_N ?? 150)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const memoryCost = PASSWORD_HASH_MEMORY_KIB

const worker = new Worker(new URL('./servers/argon2-worker.ts', import.meta.url).href)
const pending = new Map<number, { resolve: (hash: string) => void; reject: (err: Error) => void }>()
let next = 0
let posted = 0
let answered = 0
let direct = 0
worker.onmessage = (event: MessageEvent<{ id: number; hash?: string; error?: string }>) => {
  const t0 = threadMicros()
  const { id, hash: out, error } = event.data
  const waiting = pending.get(id)!
  pending.delete(id)
  if (out === undefined) waiting.reject(new Error(error))
  else waiting.resolve(out)
  answered += threadMicros() - t0
}
const viaWorker = (password: string) => new Promise<string>((resolve, reject) => {
  const t0 = threadMicros()
  const id = next++
  pending.set(id, { resolve, reject })
  worker.postMessage({ id, password, memoryCost })
  posted += threadMicros() - t0
})
const viaCall = (password: string) => {
  const t0 = threadMicros()
  const out = hash(password, { algorithm: Algorithm.Argon2id, memoryCost, timeCost: 2, parallelism: 1 })
  direct += threadMicros() - t0
  return out
}

// both ways make a hash that checks (and the first hash loads the addon on each side)
for (const made of [await viaWorker('Check-passw0rd'), await viaCall('Check-passw0rd')]) {
  if (!made.startsWith(`$argon2id$v=19$m=${memoryCost},t=2,p=1$`)) throw new Error(`unexpected hash ${made}`)
}
for (let r = 0; r < ROUNDS; r++) {
  posted = answered = direct = 0
  for (let i = 0; i < N; i++) {
    await viaWorker(`Bench-passw0rd-${i}`)
    await viaCall(`Bench-passw0rd-${i}`)
  }
  const us = (v: number) => `${(v / N).toFixed(1)} µs`
  console.log(`round ${r + 1}, per hash on the JS thread: worker postMessage ${us(posted)} + its answer's handler ${us(answered)}; direct call ${us(direct)}`)
}
worker.terminate()
