// A worker that hashes with @node-rs/argon2 at the cost it is sent: the other side of
// scripts/bench/argon2-call.ts (a worker of our own, weighed for registration and not taken).
import { Algorithm, hash } from '@node-rs/argon2'

declare const self: Worker
self.onmessage = (event: MessageEvent<{ id: number; password: string; memoryCost: number }>) => {
  const { id, password, memoryCost } = event.data
  hash(password, { algorithm: Algorithm.Argon2id, memoryCost, timeCost: 2, parallelism: 1 }).then(
    (out) => self.postMessage({ id, hash: out }),
    (err) => self.postMessage({ id, error: String(err) }),
  )
}
