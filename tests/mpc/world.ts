/**
 * What the MPC tests share: a local EVM node posing as Sepolia, a Slipway app with its job
 * worker served on a port chosen first (MPC_RELAY_URL names it, so the service party reaches
 * the relay over HTTP like any party), an `mpc` tenant and a custodial one, and the device
 * side: a user's DKG run as device (0) and backup (2) with the same library, in this process.
 */
import { expect } from 'bun:test'
import { systemClock } from '@/lib/clock'
import { runDkg, runSign } from '@/client/mpc-party'
import type { MpcEngine } from '@/adapters/mpc/port'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { freePort } from '@tests/helpers/process'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { until as waitUntil } from '@tests/helpers/until'

export interface MpcWorld {
  chain: LocalChain
  t: TestApp
  server: HttpServer
  api: Api
  f: Factory
  tenant: Tenant
  other: Tenant
  stop(): Promise<void>
}

/** `env` may be a function of the local chain (e.g. to point the sandbox faucet at it). */
export async function mpcWorld(opts: { env?: Record<string, string> | ((chain: LocalChain) => Record<string, string>) } = {}): Promise<MpcWorld> {
  const chain = await startLocalChain({ chainId: 11155111 })
  const port = freePort()
  const t = await makeApp({ clock: systemClock, jobs: true, env: { MPC_RELAY_URL: `http://127.0.0.1:${port}`, RPC_URL_SEPOLIA: chain.url, ...(typeof opts.env === 'function' ? opts.env(chain) : opts.env) } })
  const server = serve(t, port)
  const api = new Api(server.url)
  const f = new Factory(t, api)
  const tenant = await f.tenant({ walletMode: 'mpc' })
  const other = await f.tenant({ walletMode: 'mpc' })
  return {
    chain, t, server, api, f, tenant, other,
    async stop() {
      await server.stop()
      await t.close()
      await chain.stop()
    },
  }
}

export const relayOf = (w: MpcWorld, u: SignedInUser, engine?: MpcEngine) => ({ baseUrl: w.server.url, token: u.accessToken, roundTimeoutMs: 30_000, engine: engine ?? process.env.MPC_ENGINE! })

/** DKG through the relay: the device and the backup here, the service party as the worker's job; the wallet registered. */
export async function mpcWallet(w: MpcWorld, u: SignedInUser, engine?: MpcEngine) {
  const start = await w.api.post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, { token: u.accessToken })
  expect(start.status).toBe(200)
  const sessionId = start.body.sessionId as string
  const [device, backup] = await Promise.all([runDkg(relayOf(w, u, engine), sessionId, 0), runDkg(relayOf(w, u, engine), sessionId, 2)])
  expect(device.publicKey).toBe(backup.publicKey)
  const results = await until(() => w.api.get(`/v1/mpc/relay/session/${sessionId}/results`, { token: u.accessToken }), (r) => r.body.status !== 'open')
  expect(results.body.status).toBe('completed')
  const reg = await w.api.post('/v1/mpc/wallets', { sessionId, isPrimary: true }, { token: u.accessToken })
  expect(reg.status).toBe(200)
  return { sessionId, device, backup, wallet: reg.body as { id: string; address: `0x${string}`; publicKey: string } }
}

/** Prepares a native send from the MPC wallet and signs it with `parties`; answers the sign session's results. */
export async function mpcSend(w: MpcWorld, u: SignedInUser, walletId: string, shares: Record<number, Uint8Array>, parties: [number, number], to: `0x${string}`, amount: string, engine?: MpcEngine) {
  const prep = await w.api.post('/v1/transactions/', { walletId, chain: 'sepolia', toAddress: to, amount }, { token: u.accessToken })
  expect(prep.status).toBe(201)
  expect(prep.body).toMatchObject({ requiresClientSigning: true, status: 'awaiting_signature' })
  const start = await w.api.post(`/v1/mpc/wallets/${walletId}/sign/start`, { preparedTransactionId: prep.body.preparedTransactionId, parties }, { token: u.accessToken })
  expect(start.status).toBe(200)
  const sessionId = start.body.sessionId as string
  await Promise.all(parties.filter((p) => p !== 1).map((p) => runSign(relayOf(w, u, engine), sessionId, p, shares[p]!)))
  const done = await until(() => w.api.get(`/v1/mpc/relay/session/${sessionId}/results`, { token: u.accessToken }), (r) => r.body.txHash !== null || r.body.status === 'failed')
  return { prepared: prep.body, sessionId, results: done.body }
}

export const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000) => waitUntil(read, ok, timeoutMs)
