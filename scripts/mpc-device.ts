/**
 * A device-side MPC example to copy into an app (docs/mpc.md). It makes a 2-of-3 wallet with
 * Slipway's service party and then sends from it:
 *
 *   1. `POST /v1/mpc/wallets/dkg/start`, then DKG as the device (party 0) and as the backup
 *      (party 2) through the relay (src/client/mpc-party.ts);
 *   2. the device share stays on the device (here: a file; in an app: the platform keystore);
 *      the backup share is encrypted to a recovery key the user keeps (AES-256-GCM under a
 *      random 32-byte key shown once), so Slipway and the device alone never hold two shares;
 *   3. `POST /v1/mpc/wallets` registers the wallet;
 *   4. a send: `POST /v1/transactions/` prepares it, `POST /v1/mpc/wallets/{id}/sign/start`
 *      opens a signing session with the service party, the device signs, Slipway broadcasts.
 *
 *   SLIPWAY_URL=http://localhost:3000 SLIPWAY_TOKEN=<a user's access token> bun scripts/mpc-device.ts [chain] [to] [amount]
 *
 * The user's tenant must use MPC wallets (`walletMode: mpc`). Without `to`, it stops after
 * making the wallet. The send needs gas in the wallet (`POST /v1/sandbox/faucet` on the devnet).
 */
import { createCipheriv, randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { runDkg, runSign, type Relay } from '../src/client/mpc-party'

async function call(relay: Relay, method: string, path: string, body?: unknown) {
  const res = await fetch(`${relay.baseUrl}${path}`, {
    method, headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  })
  const out = await res.json() as any
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${out?.message ?? JSON.stringify(out)}`)
  return out
}

/** The backup share sealed under a recovery key: `iv ‖ tag ‖ ciphertext`, base64. */
export function sealBackup(share: Uint8Array, recoveryKey: Uint8Array): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', recoveryKey, iv)
  const ct = Buffer.concat([cipher.update(share), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')
}

/** Steps 1 to 3: the wallet, the device's share, and the backup sealed under a new recovery key. */
export async function makeWallet(relay: Relay, chain: string) {
  const session = await call(relay, 'POST', '/v1/mpc/wallets/dkg/start', { chain })
  const [device, backup] = await Promise.all([runDkg(relay, session.sessionId, 0), runDkg(relay, session.sessionId, 2)])
  const recoveryKey = randomBytes(32)
  const sealedBackup = sealBackup(backup.keyshare, recoveryKey)
  backup.keyshare.fill(0)
  // every party reported the key; the service party may report a moment after the device
  for (let i = 0; ; i++) {
    const r = await call(relay, 'GET', `/v1/mpc/relay/session/${session.sessionId}/results`)
    if (r.status === 'completed') break
    if (r.status === 'failed' || i > 200) throw new Error(`key generation did not complete: ${r.failureReason ?? r.status}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const wallet = await call(relay, 'POST', '/v1/mpc/wallets', { sessionId: session.sessionId, isPrimary: true })
  return { wallet, deviceShare: device.keyshare, sealedBackup, recoveryKey: recoveryKey.toString('base64') }
}

/** Step 4: a send signed by the device and the service party; answers the transaction id and hash. */
export async function send(relay: Relay, walletId: string, deviceShare: Uint8Array, chain: string, toAddress: string, amount: string) {
  const prepared = await call(relay, 'POST', '/v1/transactions/', { walletId, chain, toAddress, amount })
  const session = await call(relay, 'POST', `/v1/mpc/wallets/${walletId}/sign/start`, { preparedTransactionId: prepared.preparedTransactionId })
  // sign only what this app meant to send: the hash of the transaction it prepared
  await runSign(relay, session.sessionId, 0, deviceShare, prepared.signingHash)
  for (let i = 0; ; i++) {
    const r = await call(relay, 'GET', `/v1/mpc/relay/session/${session.sessionId}/results`)
    if (r.txHash) return { transactionId: r.transactionId as string, txHash: r.txHash as string }
    if (r.status === 'failed' || i > 200) throw new Error(`the send was not broadcast: ${r.failureReason ?? r.status}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

if (import.meta.main) {
  const [chain = 'sepolia', to, amount = '1000'] = process.argv.slice(2)
  const relay: Relay = { baseUrl: (process.env.SLIPWAY_URL ?? 'http://localhost:3000').replace(/\/+$/, ''), token: process.env.SLIPWAY_TOKEN ?? '' }
  if (!relay.token) throw new Error('SLIPWAY_TOKEN: a user\'s access token is needed')
  const made = await makeWallet(relay, chain)
  writeFileSync('device-share.bin', made.deviceShare, { mode: 0o600 })
  writeFileSync('backup-share.sealed', made.sealedBackup, { mode: 0o600 })
  console.log(`wallet ${made.wallet.id} at ${made.wallet.address}`)
  console.log('device share: device-share.bin; backup share, sealed: backup-share.sealed')
  console.log(`recovery key (shown once; the user keeps it): ${made.recoveryKey}`)
  if (to) console.log(await send(relay, made.wallet.id, made.deviceShare, chain, to, amount))
}
