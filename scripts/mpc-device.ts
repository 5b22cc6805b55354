/**
 * A device-side MPC example to copy into an app (docs/mpc.md, "Try it on the devnet"). It makes a
 * 2-of-3 wallet with Slipway's service party once, keeps its shares on this machine, and sends
 * from it:
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
 *   bun scripts/mpc-device.ts register              the user SLIPWAY_USERNAME (tenant-signed)
 *   bun scripts/mpc-device.ts create [chain]        a wallet (default sepolia), once per profile
 *   bun scripts/mpc-device.ts show                  the saved wallet and its balance
 *   bun scripts/mpc-device.ts faucet                gas from POST /v1/sandbox/faucet (devnet)
 *   bun scripts/mpc-device.ts send <to> <amount>    amount in the chain's smallest unit (wei)
 *
 * Shares live in `$MPC_SHARES_DIR/<profile>/` (default `./.mpc-shares/<SLIPWAY_USERNAME or
 * "default">/`, ignored by git, files readable by their owner only): `device-share.bin`,
 * `backup-share.sealed` and `wallet.json`. `create` never replaces them without asking
 * (on a terminal it asks; otherwise it refuses): a lost device share leaves only backup +
 * service to sign, and lost shares of both leave a wallet nobody can sign for.
 *
 * Credentials: SLIPWAY_URL (default http://localhost:3000) and either SLIPWAY_TOKEN (a user's
 * access token) or SLIPWAY_API_KEY + SLIPWAY_API_SECRET (the tenant's, from `slipway tenant
 * create`) with SLIPWAY_USERNAME + SLIPWAY_PASSWORD, with which the script signs in. The user's
 * tenant must use MPC wallets (`walletMode: mpc`).
 */
import { createCipheriv, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { SlipwayClient } from '../src/client'
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Steps 1 to 3: the wallet, the device's share, and the backup sealed under a new recovery key.
 * `keep` stores the shares before the wallet is registered: a share lost after that would leave
 * a wallet that cannot sign.
 */
export async function makeWallet(relay: Relay, chain: string, keep?: (shares: { deviceShare: Uint8Array; sealedBackup: string }) => void) {
  const session = await call(relay, 'POST', '/v1/mpc/wallets/dkg/start', { chain })
  const [device, backup] = await Promise.all([runDkg(relay, session.sessionId, 0), runDkg(relay, session.sessionId, 2)])
  const recoveryKey = randomBytes(32)
  const sealedBackup = sealBackup(backup.keyshare, recoveryKey)
  backup.keyshare.fill(0)
  keep?.({ deviceShare: device.keyshare, sealedBackup })
  // every party reported the key; the service party may report a moment after the device
  for (let i = 0; ; i++) {
    const r = await call(relay, 'GET', `/v1/mpc/relay/session/${session.sessionId}/results`)
    if (r.status === 'completed') break
    if (r.status === 'failed' || i > 200) throw new Error(`key generation did not complete: ${r.failureReason ?? r.status}`)
    await sleep(50)
  }
  const wallet = await call(relay, 'POST', '/v1/mpc/wallets', { sessionId: session.sessionId, isPrimary: true })
  return { wallet, deviceShare: device.keyshare, sealedBackup, recoveryKey: recoveryKey.toString('base64') }
}

/** Step 4: a send signed by the device and the service party; answers the transaction id and hash once broadcast. */
export async function send(relay: Relay, walletId: string, deviceShare: Uint8Array, chain: string, toAddress: string, amount: string) {
  const prepared = await call(relay, 'POST', '/v1/transactions/', { walletId, chain, toAddress, amount })
  const session = await call(relay, 'POST', `/v1/mpc/wallets/${walletId}/sign/start`, { preparedTransactionId: prepared.preparedTransactionId })
  // sign only what this app meant to send: the hash of the transaction it prepared
  await runSign(relay, session.sessionId, 0, deviceShare, prepared.signingHash)
  for (let i = 0; ; i++) {
    const r = await call(relay, 'GET', `/v1/mpc/relay/session/${session.sessionId}/results`)
    if (r.txHash) return { transactionId: r.transactionId as string, txHash: r.txHash as string }
    if (r.status === 'failed' || i > 200) throw new Error(`the send was not broadcast: ${r.failureReason ?? r.status}`)
    await sleep(50)
  }
}

/** Waits until the chain has mined the send (or failed it); answers its status. */
export async function settled(relay: Relay, transactionId: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const s = await call(relay, 'GET', `/v1/transactions/${transactionId}/status`)
    if (s.status !== 'pending' || Date.now() > deadline) return s.status as string
    await sleep(500)
  }
}

export interface SavedWallet { walletId: string; address: string; chain: string; publicKey: string; dkgSessionId: string; baseUrl: string; createdAt: string }

/** Where one profile's shares live, and reading them back. */
export function shareStore(dir: string) {
  const files = { wallet: join(dir, 'wallet.json'), device: join(dir, 'device-share.bin'), backup: join(dir, 'backup-share.sealed') }
  return {
    dir,
    files,
    exists: () => Object.values(files).some((f) => existsSync(f)),
    /** Writes the shares; `wx` fails rather than replace a file that appeared meanwhile. */
    saveShares(deviceShare: Uint8Array, sealedBackup: string) {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      writeFileSync(files.device, deviceShare, { mode: 0o600, flag: 'wx' })
      writeFileSync(files.backup, sealedBackup, { mode: 0o600, flag: 'wx' })
    },
    saveWallet: (w: SavedWallet) => writeFileSync(files.wallet, `${JSON.stringify(w, null, 2)}\n`, { mode: 0o600, flag: 'wx' }),
    remove: () => Object.values(files).forEach((f) => rmSync(f, { force: true })),
    load() {
      if (!existsSync(files.wallet) || !existsSync(files.device)) throw new Error(`no wallet in ${dir}: run \`bun scripts/mpc-device.ts create\` first`)
      return { wallet: JSON.parse(readFileSync(files.wallet, 'utf8')) as SavedWallet, deviceShare: new Uint8Array(readFileSync(files.device)) }
    },
  }
}

async function confirm(question: string) {
  if (!process.stdin.isTTY) return false
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return (await rl.question(question)).trim().toLowerCase() === 'yes'
  } finally {
    rl.close()
  }
}

function tenantClient(baseUrl: string) {
  const { SLIPWAY_API_KEY: apiKey, SLIPWAY_API_SECRET: apiSecret } = process.env
  if (!apiKey || !apiSecret) throw new Error('SLIPWAY_API_KEY and SLIPWAY_API_SECRET (from `slipway tenant create`) are needed to sign in')
  return new SlipwayClient({ baseUrl, tenant: { apiKey, apiSecret } })
}

function userCredentials() {
  const { SLIPWAY_USERNAME: username, SLIPWAY_PASSWORD: password } = process.env
  if (!username || !password) throw new Error('SLIPWAY_USERNAME and SLIPWAY_PASSWORD are needed (or SLIPWAY_TOKEN, a user\'s access token)')
  return { username, password }
}

/**
 * The engine the device runs: MPC_ENGINE, as the server's, or ./engines/dkls-sll once installed
 * (`npm ci --prefix engines/dkls-sll`; docs/mpc.md, "The engine"). Every party runs the same.
 */
function deviceEngine(): string {
  if (process.env.MPC_ENGINE) return process.env.MPC_ENGINE
  const dir = resolve('engines/dkls-sll')
  if (existsSync(join(dir, 'node_modules'))) return dir
  throw new Error('no MPC engine: set MPC_ENGINE to the engine the server runs, or install engines/dkls-sll (npm ci --prefix engines/dkls-sll; docs/mpc.md)')
}

/** The relay as the signed-in user: SLIPWAY_TOKEN, or a login with the tenant's key and the user's password. */
async function signIn(baseUrl: string): Promise<Relay> {
  if (process.env.SLIPWAY_TOKEN) return { baseUrl, token: process.env.SLIPWAY_TOKEN, engine: deviceEngine() }
  const login = await tenantClient(baseUrl).login(userCredentials())
  if (login.error || !login.data) throw new Error(`login: ${JSON.stringify(login.error)}`)
  return { baseUrl, token: login.data.accessToken, engine: deviceEngine() }
}

async function main(args: string[]) {
  const baseUrl = (process.env.SLIPWAY_URL ?? 'http://localhost:3000').replace(/\/+$/, '')
  const at = args.indexOf('--profile')
  const profile = at >= 0 ? args.splice(at, 2)[1] : (process.env.SLIPWAY_USERNAME ?? 'default')
  if (!profile || !/^[A-Za-z0-9_.-]{1,100}$/.test(profile) || profile.startsWith('.')) throw new Error('--profile: letters, digits, _ . or -')
  const store = shareStore(resolve(process.env.MPC_SHARES_DIR ?? '.mpc-shares', profile))
  const [command, ...rest] = args

  if (command === 'register') {
    const { username, password } = userCredentials()
    const reg = await tenantClient(baseUrl).register({ username, email: `${username}@example.com`, password })
    if (reg.error) throw new Error(`register: ${JSON.stringify(reg.error)}`)
    console.log(`user ${username} registered (${reg.data!.user.id})`)
    return
  }
  if (command === 'create') {
    const chain = rest[0] ?? 'sepolia'
    if (store.exists()) {
      const saved = existsSync(store.files.wallet) ? (JSON.parse(readFileSync(store.files.wallet, 'utf8')) as SavedWallet).address : 'a wallet whose registration did not finish'
      const replace = await confirm(`${store.dir} already holds the shares of ${saved}. Replacing them loses that wallet unless you keep a copy. Type yes to replace them: `)
      if (!replace) throw new Error(`${store.dir} already holds the shares of ${saved}: nothing was replaced. Use \`send\` to spend from it, or --profile <name> for another wallet`)
      store.remove()
    }
    const relay = await signIn(baseUrl)
    const made = await makeWallet(relay, chain, ({ deviceShare, sealedBackup }) => store.saveShares(deviceShare, sealedBackup))
    store.saveWallet({ walletId: made.wallet.id, address: made.wallet.address, chain, publicKey: made.wallet.publicKey, dkgSessionId: made.wallet.dkgSessionId, baseUrl, createdAt: new Date().toISOString() })
    console.log(`wallet ${made.wallet.id} at ${made.wallet.address} (${chain})`)
    console.log(`shares: ${store.files.device} (the device's), ${store.files.backup} (the backup's, sealed)`)
    console.log(`recovery key (shown once; the user keeps it, it opens the backup share): ${made.recoveryKey}`)
    return
  }
  if (command === 'show' || command === 'faucet' || command === 'send') {
    const { wallet, deviceShare } = store.load()
    const relay = await signIn(baseUrl)
    if (command === 'faucet') {
      const funded = await call(relay, 'POST', '/v1/sandbox/faucet', { walletId: wallet.walletId })
      console.log(`faucet: ${funded.native ? `${funded.native.amount} wei in ${funded.native.txHash}` : 'the wallet already had gas'}`)
      return
    }
    if (command === 'show') {
      const balance = await call(relay, 'GET', `/v1/wallets/${wallet.walletId}/balance`)
      console.log(JSON.stringify({ ...wallet, balance }, null, 2))
      return
    }
    const [to, amount] = rest
    if (!to || !amount || !/^[0-9]+$/.test(amount)) throw new Error('usage: send <to address> <amount in the smallest unit, e.g. wei>')
    const sent = await send(relay, wallet.walletId, deviceShare, wallet.chain, to, amount)
    deviceShare.fill(0)
    console.log(`sent ${amount} from ${wallet.address} to ${to}: transaction ${sent.transactionId}, ${sent.txHash}`)
    console.log(`status: ${await settled(relay, sent.transactionId)}`)
    return
  }
  console.error('usage: bun scripts/mpc-device.ts register | create [chain] | show | faucet | send <to> <amount>  [--profile <name>]')
  process.exitCode = 2
}

if (import.meta.main) {
  await main(process.argv.slice(2)).catch((err: Error) => {
    console.error(`mpc-device: ${err.message}`)
    process.exitCode = 1
  })
}
