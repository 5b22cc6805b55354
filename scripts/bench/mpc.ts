/**
 * MPC benchmark (issue 26): one DKG (2-of-3) and one signature through Slipway's relay, wall
 * time and CPU per operation on this machine, with the service party's share of it.
 *
 * Slipway runs as its own process (`bun src/index.ts`, role all: its worker runs the service
 * party and reaches the relay over HTTP on loopback); the device and the backup run in this
 * script's process with the same library (src/client/mpc-party.ts), against the devnet's
 * Sepolia node in process. CPU is read from /proc for Slipway (the service party and the
 * relay together) and with process.cpuUsage() here (device and backup). The baseline is the
 * library alone: the same protocol with every party in one process and messages handed over
 * in memory, so what the relay and HTTP add shows against it.
 *
 *   bun scripts/bench/mpc.ts           (BENCH_MPC_RUNS=5 DKGs, twice as many signatures)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadLibrary } from '../../engines/dkls-sll'
import type { SllMessage as Message } from '../../engines/dkls-sll/sll-types'
import { startDevnet } from '../devnet/chain'
import { runDkg, runSign } from '../../src/client/mpc-party'
import { benchEnv, benchUser, cpuMs, median, spawnServer } from './lib'

const RUNS = Math.max(1, Number(process.env.BENCH_MPC_RUNS ?? 5))
// the engine Slipway's tests run (engines/dkls-sll, installed with `npm ci --prefix engines/dkls-sll`)
const ENGINE = join(import.meta.dir, '../../engines/dkls-sll')
const { KeygenSession, Keyshare, SignSession } = await loadLibrary()
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-mpc-'))
const devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
const env = { ...benchEnv(dir, devnet.env), MPC_ENGINE: ENGINE }
const slipway = await spawnServer(['src/index.ts'], env)
const ms = (a: number, b: number) => b - a
const cpuHere = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }

/** The library alone: every party in this process, messages handed over in memory (the README's flow). */
function libraryAlone() {
  const others = (msgs: Message[], p: number) => msgs.filter((m) => m.from_id !== p).map((m) => m.clone())
  const to = (msgs: Message[], p: number) => msgs.filter((m) => m.to_id === p).map((m) => m.clone())
  let t0 = performance.now()
  const parties = [0, 1, 2].map((i) => new KeygenSession(3, 2, i))
  const m1 = parties.map((p) => p.createFirstMessage())
  const m2 = parties.flatMap((p, i) => p.handleMessages(others(m1, i)))
  const commitments = parties.map((p) => p.calculateChainCodeCommitment())
  const m3 = parties.flatMap((p, i) => p.handleMessages(to(m2, i)))
  const m4 = parties.flatMap((p, i) => p.handleMessages(to(m3, i), commitments))
  parties.forEach((p, i) => p.handleMessages(others(m4, i)))
  const shares = parties.map((p) => p.keyshare().toBytes())
  const dkg = performance.now() - t0
  t0 = performance.now()
  const signers = [0, 1].map((i) => new SignSession(Keyshare.fromBytes(shares[i]!), 'm'))
  const s1 = signers.map((p) => p.createFirstMessage())
  const s2 = signers.flatMap((p, i) => p.handleMessages(others(s1, i)))
  const s3 = signers.flatMap((p, i) => p.handleMessages(to(s2, i)))
  signers.forEach((p, i) => p.handleMessages(to(s3, i)))
  const last = signers.map((p) => p.lastMessage(new Uint8Array(32).fill(7)))
  signers.forEach((p, i) => p.combine(others(last, i)))
  return { dkg, sign: performance.now() - t0 }
}

try {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(slipway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const out = await res.json() as any
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(out)}`)
    return out
  }
  const get = async (path: string, token: string) => (await fetch(slipway.url + path, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<any>
  const { user } = await benchUser(slipway.url, 'bench-mpc', { walletMode: 'mpc' })
  const token = user.accessToken as string
  const auth = { authorization: `Bearer ${token}` }
  const relay = { baseUrl: slipway.url, token, pollMs: 10, engine: ENGINE }

  // warm-up: the library and Slipway's MPC module load
  libraryAlone()
  const until = async (path: string, ok: (b: any) => boolean) => {
    for (;;) {
      const b = await get(path, token)
      if (ok(b)) return b
      await Bun.sleep(5)
    }
  }
  const dkgRuns: Array<{ wall: number; here: number; slipway: number }> = []
  let made: { walletId: string; device: Uint8Array } | undefined
  for (let i = 0; i <= RUNS; i++) {
    const [c0, s0, t0] = [cpuHere(), (await cpuMs(slipway.proc.pid))!, performance.now()]
    const start = await post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, auth)
    const [device] = await Promise.all([runDkg(relay, start.sessionId, 0), runDkg(relay, start.sessionId, 2)])
    await until(`/v1/mpc/relay/session/${start.sessionId}/results`, (b) => b.status === 'completed')
    const wallet = await post('/v1/mpc/wallets', { sessionId: start.sessionId }, auth)
    const [c1, s1, t1] = [cpuHere(), (await cpuMs(slipway.proc.pid))!, performance.now()]
    // the first run warms up and is not counted
    if (i > 0) dkgRuns.push({ wall: ms(t0, t1), here: ms(c0, c1), slipway: ms(s0, s1) })
    made = { walletId: wallet.id, device: device.keyshare }
  }
  await post('/v1/sandbox/faucet', { walletId: made!.walletId }, auth)
  const signRuns: Array<{ wall: number; here: number; slipway: number }> = []
  for (let i = 0; i <= RUNS * 2; i++) {
    const prep = await post('/v1/transactions/', { walletId: made!.walletId, chain: 'sepolia', toAddress: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0004', amount: '1000' }, auth)
    const [c0, s0, t0] = [cpuHere(), (await cpuMs(slipway.proc.pid))!, performance.now()]
    const start = await post(`/v1/mpc/wallets/${made!.walletId}/sign/start`, { preparedTransactionId: prep.preparedTransactionId }, auth)
    await runSign(relay, start.sessionId, 0, made!.device)
    await until(`/v1/mpc/relay/session/${start.sessionId}/results`, (b) => b.txHash !== null)
    const [c1, s1, t1] = [cpuHere(), (await cpuMs(slipway.proc.pid))!, performance.now()]
    if (i > 0) signRuns.push({ wall: ms(t0, t1), here: ms(c0, c1), slipway: ms(s0, s1) })
    await until(`/v1/transactions/${prep.id}/status`, (b) => b.status === 'confirmed')
  }
  const alone = Array.from({ length: RUNS }, libraryAlone)
  const row = (name: string, runs: typeof dkgRuns, parties: number, lib: number) => {
    const wall = median(runs.map((r) => r.wall))
    const slip = median(runs.map((r) => r.slipway))
    const here = median(runs.map((r) => r.here)) / (parties - 1)
    console.log(`| ${name} | ${wall.toFixed(0)} | ${slip.toFixed(0)} | ${here.toFixed(0)} | ${(lib / parties).toFixed(0)} | ${lib.toFixed(0)} | ${(wall / lib).toFixed(2)}× |`)
  }
  console.log(`\nMPC over the relay, ${RUNS} DKGs and ${RUNS * 2} signatures (medians; the first of each not counted)\n`)
  console.log('| operation | wall ms | Slipway CPU ms (service party + relay) | device-side CPU ms per party | library alone, CPU ms per party | library alone, all parties ms | wall / library alone |')
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  row('DKG (3 parties) + registration', dkgRuns, 3, median(alone.map((a) => a.dkg)))
  row('signature (device + service) + broadcast', signRuns, 2, median(alone.map((a) => a.sign)))
} finally {
  slipway.proc.kill()
  await slipway.proc.exited
  await devnet.stop()
  rmSync(dir, { recursive: true, force: true })
}
