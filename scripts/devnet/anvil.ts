/**
 * An anvil node (Foundry's EVM node, from the `@foundry-rs/anvil` npm package: its binary
 * ships in the platform package, nothing is downloaded) as a child process on 127.0.0.1.
 * Used by the devnet, the tests, the chaos run and the benchmarks.
 *
 * - It listens on a free port of its own choosing (`--port 0`) unless given one, and says
 *   which on its first output line: no port is picked here and then raced for.
 * - Its output (one line per RPC call) is read and dropped, so it never fills a pipe and
 *   stalls the node; `EVM_NODE_LOGS=1` passes it to stderr. What it printed is kept for the
 *   error when it fails to start.
 * - Runs the latest hard fork anvil knows (Prague or later, `--hardfork`), keeps no state on
 *   disk unless `state` is given (then `--state`: loaded at start when the file exists,
 *   written on exit and every `stateIntervalSeconds`), and is killed with the process that
 *   started it.
 * - `accounts` are funded with `anvil_setBalance` (anvil's own mnemonic accounts are not
 *   made: `--accounts 0`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

export interface AnvilOptions {
  chainId: number
  /** 0 (the default): a free port */
  port?: number
  host?: string
  /** seconds between blocks (interval mining, like a real chain; fractions allowed); unset: a block per transaction */
  blockTime?: number
  /** a file the chain is loaded from (when it exists) and dumped to on exit */
  state?: string
  /** also dump the state every this many seconds (with `state`), so a killed node loses little */
  stateIntervalSeconds?: number
  /** addresses and the native balance (wei) each is given */
  balances?: Array<{ address: string; wei: bigint }>
  /** further anvil flags */
  args?: string[]
}

export interface AnvilNode {
  url: string
  port: number
  pid: number
  /** one JSON-RPC call; throws the node's error message */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>
  /** SIGTERM (anvil dumps its state then), SIGKILL after 5 s */
  stop(): Promise<void>
}

const require = createRequire(import.meta.url)

/** The anvil binary: the platform package's (`@foundry-rs/anvil-linux-amd64`, ...), else ANVIL_BIN. */
export function anvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const name = process.platform === 'win32' ? 'anvil.exe' : 'anvil'
  try {
    return require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${name}`)
  } catch {
    const fallback = join(require.resolve('@foundry-rs/anvil/package.json'), '..', name)
    if (existsSync(fallback)) return fallback
    throw new Error(`no anvil binary for ${process.platform}-${arch}: npm install @foundry-rs/anvil (or set ANVIL_BIN)`)
  }
}

const running = new Set<ChildProcess>()
let exitHookSet = false
/** A node outlives a crashed or interrupted parent otherwise (a test run stopped with Ctrl-C). */
function killOnExit(child: ChildProcess) {
  running.add(child)
  child.once('exit', () => running.delete(child))
  if (exitHookSet) return
  exitHookSet = true
  process.once('exit', () => {
    for (const c of running) c.kill('SIGKILL')
  })
}

const START_TIMEOUT_MS = 15_000

export async function startAnvil(opts: AnvilOptions): Promise<AnvilNode> {
  const host = opts.host ?? '127.0.0.1'
  const args = [
    '--host', host, '--port', String(opts.port ?? 0), '--chain-id', String(opts.chainId),
    '--accounts', '0', '--hardfork', 'prague',
    // states of old blocks are dropped, never spilled to a cache folder on disk
    '--max-persisted-states', '0',
    ...(opts.blockTime !== undefined ? ['--block-time', String(opts.blockTime)] : []),
    ...(opts.state ? ['--state', opts.state, ...(opts.stateIntervalSeconds ? ['--state-interval', String(opts.stateIntervalSeconds)] : [])] : []),
    ...(opts.args ?? []),
  ]
  // its own process group: a Ctrl-C at the terminal reaches the parent, which stops the node
  // itself (a second signal while anvil writes its state could cut the file short)
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' }, detached: true })
  killOnExit(child)
  const logs = process.env.EVM_NODE_LOGS === '1' || process.env.EVM_NODE_LOGS === 'true'
  let seen = ''
  let listening = () => {}
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`anvil did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS)
    const fail = (err: Error) => {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(new Error(`${err.message}${seen.trim() ? `\n${seen.trim().split('\n').slice(-10).join('\n')}` : ''}`))
    }
    const read = (chunk: Buffer) => {
      if (logs) process.stderr.write(chunk)
      if (seen.length < 64_000) seen += chunk.toString()
      const m = /Listening on [^\s]*:(\d+)/.exec(seen)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    }
    const early = (code: number | null, signal: NodeJS.Signals | null) => fail(new Error(`anvil exited before listening (${signal ?? `code ${code}`}): anvil ${args.join(' ')}`))
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.once('error', fail)
    child.once('exit', early)
    listening = () => {
      child.stdout!.off('data', read)
      child.stderr!.off('data', read)
      child.off('error', fail)
      child.off('exit', early)
    }
  })
  // Once listening, only drain (unless logs were asked for): the node writes a line per call.
  listening()
  seen = ''
  // a failed kill later is not the caller's to handle (an 'error' with no listener would throw)
  child.on('error', () => {})
  child.stdout!.on('data', (chunk: Buffer) => logs && process.stderr.write(chunk))
  child.stderr!.on('data', (chunk: Buffer) => logs && process.stderr.write(chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://${host}:${port}`
  let id = 0
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) })
    const body = (await res.json()) as { result?: T; error?: { message: string } }
    if (body.error) throw new Error(`${method}: ${body.error.message}`)
    return body.result as T
  }
  try {
    for (const b of opts.balances ?? []) await rpc('anvil_setBalance', [b.address, `0x${b.wei.toString(16)}`])
  } catch (err) {
    child.kill('SIGKILL')
    throw err
  }
  return {
    url,
    port,
    pid: child.pid!,
    rpc,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}
