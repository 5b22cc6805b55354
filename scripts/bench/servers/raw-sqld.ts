// Baseline for scripts/bench/scale.ts: raw sqld with the same statements sent the same way.
// RAW_RECORDING is a JSON file of what one Slipway process (topology b) sent to sqld for one
// request of each scenario (recorded through a proxy: Hrana over HTTP, JSON encoding), as
// streams of round trips. Per request, this bare Bun.serve replays a scenario's streams in
// order against RAW_SQLD_URL over Hrana streams of @libsql/hrana-client (what @libsql/client
// runs on): each round trip's requests (statements, batches) sent together in one HTTP request
// (a pipeline, or a cursor for a transaction's batch), as the client sent them. Ids (UUIDs) and EVM addresses are replaced by fresh ones per
// request (those that existed before the recording are kept), so unique indexes accept every row. POST /<scenario> answers 201.
import { readFileSync } from 'node:fs'
import { randomBytes, randomUUID } from 'node:crypto'
import type { InValue } from '@libsql/client'
import * as hrana from '@libsql/hrana-client'

export interface RecordedValue { type: 'null' | 'integer' | 'float' | 'text' | 'blob'; value?: string | number; base64?: string }
export interface RecordedStmt { sql: string; args: RecordedValue[] }
/** One request of a round trip: a statement, or a batch of steps (each run when the one before succeeded; BEGIN and COMMIT included). */
export type Item = { type: 'execute'; stmt: RecordedStmt } | { type: 'batch'; steps: RecordedStmt[] }
/** One round trip: a pipeline of requests, or a cursor (one batch); `held`: on a stream held open across requests (src/db/held-streams.ts). */
export interface Round { cursor: boolean; held?: boolean; items: Item[] }
/** Per scenario, its streams in order, each a list of round trips. */
export type Recording = Record<string, Round[][]>

const url = process.env.RAW_SQLD_URL!
const recording = JSON.parse(readFileSync(process.env.RAW_RECORDING!, 'utf8')) as Recording
// ids that existed before the recorded request (the tenant, user, agent...): kept, so foreign keys hold
const known = new Set(JSON.parse(process.env.RAW_KNOWN ?? '[]') as string[])
const h = hrana.openHttp(url)
// held streams, as Slipway's (src/db/held-streams.ts): a recorded stream that was held takes a free one (used in the last 5 s)
const idle: Array<{ stream: hrana.Stream; at: number }> = []
const heldStream = () => {
  for (let s = idle.pop(); s; s = idle.pop()) {
    if (!s.stream.closed && Date.now() - s.at < 5000) return s.stream
    s.stream.close()
  }
  return h.openStream()
}

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|0x[0-9a-fA-F]{40}/g
function fresh(map: Map<string, string>, s: string) {
  return s.replace(ID, (m) => {
    const k = m.toLowerCase()
    if (known.has(k)) return m
    if (!map.has(k)) map.set(k, k.startsWith('0x') ? `0x${randomBytes(20).toString('hex')}` : randomUUID())
    return map.get(k)!
  })
}
function args(map: Map<string, string>, vals: RecordedValue[]): InValue[] {
  return vals.map((v) => {
    if (v.type === 'null') return null
    if (v.type === 'integer') return BigInt(v.value as string)
    if (v.type === 'float') return Number(v.value)
    if (v.type === 'blob') return Buffer.from(v.base64 ?? '', 'base64')
    return fresh(map, String(v.value))
  })
}

/**
 * Write transactions one at a time, as Slipway runs them per process (src/db/gate.ts): 32
 * overlapping BEGIN IMMEDIATE streams made sqld answer a handful per second.
 */
let gate: Promise<unknown> = Promise.resolve()
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const run = gate.then(fn)
  gate = run.catch(() => undefined)
  return run
}
const writes = (rounds: Round[]) => rounds.some((r) => r.items.some((i) => (i.type === 'batch' ? i.steps : [i.stmt]).some((s) => /^\s*BEGIN\b/i.test(s.sql))))

async function replay(streams: Round[][]) {
  const map = new Map<string, string>()
  const stmt = (s: RecordedStmt) => new hrana.Stmt(fresh(map, s.sql)).bindIndexes(args(map, s.args) as hrana.InValue[])
  for (const rounds of streams) {
    if (writes(rounds)) await oneAtATime(() => runStream(rounds, stmt))
    else await runStream(rounds, stmt)
  }
}

async function runStream(rounds: Round[], stmt: (s: RecordedStmt) => hrana.Stmt) {
  const held = rounds.every((r) => r.held)
  {
    const stream = held ? heldStream() : h.openStream()
    let ok = false
    try {
      for (const r of rounds) {
        // not awaited one by one: the stream sends a round's requests in one HTTP request, as the client did
        await Promise.all(r.items.map(async (item) => {
          if (item.type === 'execute') return stream.run(stmt(item.stmt))
          const batch = stream.batch(r.cursor)
          let prev: hrana.BatchStep | undefined
          for (const s of item.steps) {
            const step = batch.step()
            if (prev) step.condition(hrana.BatchCond.ok(prev))
            step.run(stmt(s)).catch(() => undefined)
            prev = step
          }
          await batch.execute()
        }))
      }
      ok = true
    } finally {
      if (held && ok && !stream.closed) idle.push({ stream, at: Date.now() })
      else stream.closeGracefully()
    }
  }
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  async fetch(req) {
    const name = new URL(req.url).pathname.slice(1)
    if (req.method !== 'POST') return Response.json({ status: 'ok' })
    const streams = recording[name]
    if (!streams) return Response.json({ error: `no recording ${name}` }, { status: 404 })
    await req.arrayBuffer()
    try {
      await replay(streams)
      return Response.json({ ok: true }, { status: 201 })
    } catch (err) {
      return Response.json({ error: String(err) }, { status: 500 })
    }
  },
})
console.log(`ready ${server.port}`)
