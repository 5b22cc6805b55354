/**
 * Slipway's service party (party 1), the `mpc.service.party` job. It reaches the relay over
 * HTTP (MPC_RELAY_URL) with a service token it mints for the session's tenant, exactly as an
 * outside party would, and runs src/client/mpc-party.ts like the device does.
 *
 * - DKG: its key share is sealed (MASTER_KEY, AAD `mpc_share:<tenant>:<session>`) and stored
 *   before it reports the public key; the clear bytes live only in this function.
 * - Signing: it signs only the hash of the session's prepared transaction as the
 *   transactions module stored it, read here from the database (never the relay's word),
 *   and only with the share bound to the session's wallet.
 * The service never holds a second share: the device's and the backup's never reach it.
 */
import { loadMpcEngine } from '../../adapters/mpc/engine'
import type { Deps } from '../../deps'
import { errorSummary } from '../../lib/logger'
import { runDkg, runSign } from '../../client/mpc-party'
import * as txRepo from '../transactions'
import { SERVICE } from './model'
import * as repo from './repo'
import { shareAad } from './sealed'
import { mintServiceToken } from './service-token'

export async function runServiceParty(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>) {
  const sessionId = String(payload.sessionId ?? '')
  const s = tenantId ? await repo.findSession(deps.database.db, tenantId, sessionId) : undefined
  if (!tenantId || !s || s.status !== 'open' || s.expiresAt <= deps.clock.now() || !s.parties.includes(SERVICE)) return
  const relay = {
    baseUrl: deps.config.mpcRelayUrl,
    token: mintServiceToken(deps.jwtKey, tenantId, deps.clock.now(), Math.ceil((s.expiresAt - deps.clock.now()) / 1000)).token,
    roundTimeoutMs: Math.max(1000, s.expiresAt - deps.clock.now()),
    engine: await loadMpcEngine(deps.config.mpcEngine),
  }
  try {
    if (s.kind === 'dkg') {
      await runDkg(relay, s.id, SERVICE, {
        beforeResult: async ({ keyshare, publicKey }) => {
          const sealed = deps.sealer.seal(keyshare, shareAad(tenantId, s.id))
          keyshare.fill(0)
          await deps.database.write((tx) => repo.insertShare(tx, { sessionId: s.id, tenantId, userId: s.userId, walletId: null, publicKey, shareSealed: sealed, createdAt: deps.clock.now() }))
        },
      })
      deps.logger.info('mpc service party: key generated', { sessionId: s.id })
      return
    }
    const prepared = s.preparedId ? await txRepo.findPrepared(deps.database.db, tenantId, s.preparedId) : undefined
    const share = s.walletId ? await repo.findShareOfWallet(deps.database.db, tenantId, s.walletId) : undefined
    if (!prepared || !share || prepared.walletId !== s.walletId || prepared.signingPayload !== s.messageHash) {
      deps.logger.warn('mpc service party: nothing to sign with for this session', { sessionId: s.id })
      return
    }
    const bytes = new Uint8Array(deps.sealer.openBytes(share.shareSealed, shareAad(tenantId, share.sessionId)))
    try {
      await runSign(relay, s.id, SERVICE, bytes, prepared.signingPayload)
    } finally {
      bytes.fill(0)
    }
    deps.logger.info('mpc service party: signed', { sessionId: s.id })
  } catch (err) {
    // the session expires on its own; the device sees the service party's silence as a timeout
    deps.logger.warn('mpc service party: the protocol stopped', { sessionId: s.id, kind: s.kind, ...errorSummary(err) })
  }
}
