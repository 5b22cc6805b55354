/**
 * API keys of agents (routes 8-10) and merchants (routes 22-24). A key is 32 random bytes
 * after its kind's prefix, answered once at creation; only its SHA-256 is stored, so a copy
 * of the database gives nobody a key. credentials.ts checks a presented key.
 */
import { randomBytes } from 'node:crypto'
import { ConflictError, NotFoundError } from '../../../lib/errors'
import { sha256Hex } from '../../../lib/crypto'
import { newId } from '../../../lib/ids'
import { visibleAgent } from './agents'
import { recordChange } from '../changes'
import { KEY_PREFIX, type Scope } from './credentials'
import { visibleMerchant } from '../merchants/merchants'
import * as repo from '../repo'
import type { ApiKeyRow } from '../schema'
import type { ApEnvironment } from '../record-types'
import { keyView } from '../views'

type Kind = ApiKeyRow['kind']
const resourceOf = (kind: Kind) => (kind === 'agent' ? 'agent_api_key' as const : 'merchant_api_key' as const)
/** The key's view with its owner, for the audit log and events. */
const auditView = (row: ApiKeyRow) => ({ ...keyView(row), [row.kind === 'agent' ? 'agentId' : 'merchantId']: row.ownerId })

/** The owner (an agent that is not archived, a merchant that is not disabled, for new keys) and its environment. */
async function owner(scope: Scope, kind: Kind, ownerId: string, forNewKey = false): Promise<{ environment: ApEnvironment }> {
  if (kind === 'agent') {
    const a = await visibleAgent(scope, ownerId)
    if (forNewKey && a.status === 'archived') throw new ConflictError('The agent is archived', { code: 'AGENT_ARCHIVED' })
    return a
  }
  const m = await visibleMerchant(scope, ownerId)
  if (forNewKey && m.status === 'disabled') throw new ConflictError('The merchant is disabled', { code: 'MERCHANT_DISABLED' })
  return m
}

export async function createKey(scope: Scope, kind: Kind, ownerId: string, input: { name: string; scopes?: string[] }) {
  const { environment } = await owner(scope, kind, ownerId, true)
  const key = `${KEY_PREFIX[kind]}${randomBytes(32).toString('base64url')}`
  const now = scope.deps.clock.now()
  const row: ApiKeyRow = {
    id: newId(), tenantId: scope.tenantId, kind, ownerId, name: input.name, prefix: key.slice(0, KEY_PREFIX[kind].length + 4),
    keyHash: sha256Hex(key), scopes: input.scopes ?? [], lastUsedAt: null, revokedAt: null, createdAt: now,
  }
  await scope.deps.database.write(async (tx) => {
    await repo.insertKey(tx, row)
    await recordChange(tx, scope, { resourceType: resourceOf(kind), resourceId: row.id, change: 'created', before: null, after: auditView(row), environments: [environment] }, now)
  })
  return { ...keyView(row), key }
}

export async function listKeys(scope: Scope, kind: Kind, ownerId: string, q: { limit?: number; offset?: number }) {
  await owner(scope, kind, ownerId)
  const { rows, total } = await repo.listKeys(scope.deps.database.db, scope.tenantId, kind, ownerId, { limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(keyView), total }
}

/** Revokes the key at once (its next request answers 401); a revoked key answers as it is. */
export async function revokeKey(scope: Scope, kind: Kind, ownerId: string, keyId: string) {
  const { environment } = await owner(scope, kind, ownerId)
  const before = await repo.findKey(scope.deps.database.db, scope.tenantId, kind, ownerId, keyId)
  if (!before) throw new NotFoundError('API key not found')
  if (before.revokedAt !== null) return keyView(before)
  const now = scope.deps.clock.now()
  const after: ApiKeyRow = { ...before, revokedAt: now }
  await scope.deps.database.write(async (tx) => {
    if (!await repo.revokeKey(tx, scope.tenantId, keyId, now)) return
    await recordChange(tx, scope, { resourceType: resourceOf(kind), resourceId: keyId, change: 'revoked', before: auditView(before), after: auditView(after), environments: [environment] }, now)
  })
  return keyView(after)
}
