/**
 * The devnet's Solana endpoint: a LiteSVM-backed node (tests/fakes/solana-svm.ts: the real
 * System, SPL Token and associated token account programs, signatures and fees, in process)
 * served as JSON-RPC on 127.0.0.1, for `solana-devnet` (RPC_URL_SOLANA_DEVNET in .env.devnet).
 * The token registry's devnet USDC mint is created at its address (6 decimals). Two ways to
 * fund a wallet offline:
 * - `requestAirdrop [address, lamports]`: SOL, as Solana's public devnet offers it;
 * - `devnet_mintTo [owner, mint, amount]`: a registry mint's tokens (a real MintTo by the
 *   devnet's public mint authority, creating the owner's associated token account).
 * With `statePath` the node's state (accounts, blocks, statuses) is written there after every
 * change and read back at start, so a restart keeps balances. No websocket: clients poll.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createRegistryMints, SolanaSvm, type Snapshot } from '../../tests/fakes/solana-svm'
import { handleRpc } from '../../tests/fakes/solana-svm-rpc'

/** the token registry's Solana devnet USDC (src/adapters/chain/registry.ts) */
export const DEVNET_SOLANA_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
/** solana-test-validator's RPC port */
export const SOLANA_DEVNET_PORT = 8899

const CHANGES = new Set(['sendTransaction', 'requestAirdrop', 'devnet_mintTo'])

export interface SolanaDevnet {
  url: string
  svm: SolanaSvm
  env: { RPC_URL_SOLANA_DEVNET: string }
  stop(): Promise<void>
}

function load(statePath: string | undefined): SolanaSvm {
  if (!statePath || !existsSync(statePath)) {
    const svm = new SolanaSvm()
    createRegistryMints(svm, 'solana-devnet')
    return svm
  }
  return new SolanaSvm(JSON.parse(readFileSync(statePath, 'utf8')) as Snapshot)
}

export async function startSolanaDevnet(opts: { port: number; statePath?: string }): Promise<SolanaDevnet> {
  const svm = load(opts.statePath)
  let saved = Promise.resolve()
  let dirty = false
  // written whole under another name, then renamed: a crash never leaves half a state
  const save = () => {
    if (!opts.statePath || !dirty) return
    dirty = false
    mkdirSync(dirname(opts.statePath), { recursive: true })
    writeFileSync(`${opts.statePath}.tmp`, JSON.stringify(svm.snapshot()))
    renameSync(`${opts.statePath}.tmp`, opts.statePath)
  }
  const extra = (method: string, params: unknown[]) => {
    if (CHANGES.has(method)) dirty = true
    if (method === 'devnet_mintTo') return svm.mintTo(params[0] as string, params[1] as string, BigInt(params[2] as string | number))
    return undefined
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: opts.port,
    async fetch(req) {
      if (req.method !== 'POST') return new Response('Solana JSON-RPC (devnet, LiteSVM): POST a JSON-RPC request', { status: 405 })
      let body: unknown
      try {
        body = await req.json()
      } catch {
        return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
      }
      const answer = handleRpc(svm, body as never, { extra })
      saved = saved.then(save)
      return Response.json(answer)
    },
  })
  dirty = true
  save()
  return {
    url: `http://127.0.0.1:${server.port}`,
    svm,
    env: { RPC_URL_SOLANA_DEVNET: `http://127.0.0.1:${server.port}` },
    stop: async () => {
      server.stop(true)
      await saved
      save()
    },
  }
}
