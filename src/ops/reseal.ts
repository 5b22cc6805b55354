/**
 * `slipway reseal`: moves every value sealed under an earlier MASTER_KEY version to the
 * current one, so the old key can be dropped. See docs/operations.md, "Rotating MASTER_KEY".
 *
 * Sealed values, with the associated data that binds each to its row:
 * - app_meta `jwt_secret` (the generated JWT key)                 `app_meta:jwt_secret`
 * - tenants.api_secret_sealed                                     `tenant:<id>:api_secret`
 * - tenants.settings bankRamp.<env>.apiKeySealed / webhookKeySealed `tenant:<id>:bankRamp:<env>:<field>`
 * - webhooks.secret_sealed                                        `webhook:<tenant>:<id>:secret`
 * - wallets.data_key_wrapped (the per-wallet data key; the private key under it is untouched) `wallet:<tenant>:<id>:dek`
 * - outbox rows of `mail.send` not yet handed to the queue         `mail:<job id>`
 *
 * Rows are read in primary-key order, a page at a time; each value is rewritten in its own
 * write transaction, on condition that it is still the value read, so a secret rotated by
 * the API in the meantime is left as the API wrote it. An interrupted run loses nothing. Running it again is harmless: values already
 * under the current version are skipped. A value that opens with none of the configured
 * keys is counted as failed and left alone; the command then exits non-zero.
 */
import { and, asc, eq, gt, isNotNull, isNull, not, like } from 'drizzle-orm'
import type { Deps } from '../deps'
import { appMeta, tenants } from '../db/schema'
import { outbox } from '../jobs/schema'
import { Sealer } from '../lib/crypto'
import { MAIL_TOPIC, mailAad } from '../modules/mail/service'
import { secretAad as tenantSecretAad } from '../modules/tenants/service'
import { bankRampAad } from '../modules/tenants/settings'
import { dekAad } from '../modules/wallets/keys'
import { wallets } from '../modules/wallets/schema'
import { secretAad as webhookSecretAad } from '../modules/webhooks/secrets'
import { webhooks } from '../modules/webhooks/schema'

export interface ColumnReport {
  /** values moved to the current version by this run */
  resealed: number
  /** values no configured key opens, left as they are */
  failed: number
}

/** What a run did per column, and the versions after it. */
export interface ResealReport extends VersionSummary {
  columns: Record<string, ColumnReport>
}

const BATCH = 100

/** One sealed value: where it lives, its associated data, and how to write it back if it is unchanged. */
interface Item {
  key: string
  sealed: string
  aad: string
}

interface Column {
  name: string
  /** up to `limit` rows after the cursor `after`, in key order: the values among them under another version than `current`, and the new cursor (undefined at the end) */
  scan(deps: Deps, current: number, after: string, limit: number): Promise<{ items: Item[]; last?: string }>
  /** writes `next` where the value is still `prev`; false when it changed meanwhile */
  write(deps: Deps, item: Item, next: string): Promise<boolean>
  /** every sealed value of the column, for the version count */
  all(deps: Deps): Promise<string[]>
}

const notCurrent = (col: Parameters<typeof like>[0], current: number) => not(like(col, `v${current}.%`))

const COLUMNS: Column[] = [
  {
    name: 'app_meta.jwt_secret',
    async scan(deps, current, after) {
      if (after) return { items: [] }
      const row = await deps.database.db.select().from(appMeta).where(and(eq(appMeta.key, 'jwt_secret'), notCurrent(appMeta.value, current))).get()
      return { items: row ? [{ key: 'jwt_secret', sealed: row.value, aad: 'app_meta:jwt_secret' }] : [], last: 'jwt_secret' }
    },
    async write(deps, item, next) {
      const r = await deps.database.write((tx) => tx.update(appMeta).set({ value: next }).where(and(eq(appMeta.key, item.key), eq(appMeta.value, item.sealed))).returning({ k: appMeta.key }))
      return r.length === 1
    },
    async all(deps) {
      return (await deps.database.db.select({ v: appMeta.value }).from(appMeta).where(eq(appMeta.key, 'jwt_secret'))).map((r) => r.v)
    },
  },
  {
    name: 'tenants.api_secret_sealed',
    async scan(deps, current, after, limit) {
      const rows = await deps.database.db.select({ id: tenants.id, v: tenants.apiSecretSealed }).from(tenants)
        .where(and(gt(tenants.id, after), notCurrent(tenants.apiSecretSealed, current))).orderBy(asc(tenants.id)).limit(limit)
      return { items: rows.map((r) => ({ key: r.id, sealed: r.v, aad: tenantSecretAad(r.id) })), last: rows.at(-1)?.id }
    },
    async write(deps, item, next) {
      const r = await deps.database.write((tx) => tx.update(tenants).set({ apiSecretSealed: next }).where(and(eq(tenants.id, item.key), eq(tenants.apiSecretSealed, item.sealed))).returning({ id: tenants.id }))
      return r.length === 1
    },
    async all(deps) {
      return (await deps.database.db.select({ v: tenants.apiSecretSealed }).from(tenants)).map((r) => r.v)
    },
  },
  bankRampColumn(),
  {
    name: 'webhooks.secret_sealed',
    async scan(deps, current, after, limit) {
      const rows = await deps.database.db.select({ id: webhooks.id, tenantId: webhooks.tenantId, v: webhooks.secretSealed }).from(webhooks)
        .where(and(gt(webhooks.id, after), notCurrent(webhooks.secretSealed, current))).orderBy(asc(webhooks.id)).limit(limit)
      return { items: rows.map((r) => ({ key: r.id, sealed: r.v, aad: webhookSecretAad(r.tenantId, r.id) })), last: rows.at(-1)?.id }
    },
    async write(deps, item, next) {
      const r = await deps.database.write((tx) => tx.update(webhooks).set({ secretSealed: next }).where(and(eq(webhooks.id, item.key), eq(webhooks.secretSealed, item.sealed))).returning({ id: webhooks.id }))
      return r.length === 1
    },
    async all(deps) {
      return (await deps.database.db.select({ v: webhooks.secretSealed }).from(webhooks)).map((r) => r.v)
    },
  },
  {
    name: 'wallets.data_key_wrapped',
    async scan(deps, current, after, limit) {
      const rows = await deps.database.db.select({ id: wallets.id, tenantId: wallets.tenantId, v: wallets.dataKeyWrapped }).from(wallets)
        .where(and(gt(wallets.id, after), isNotNull(wallets.dataKeyWrapped), notCurrent(wallets.dataKeyWrapped, current))).orderBy(asc(wallets.id)).limit(limit)
      return { items: rows.map((r) => ({ key: r.id, sealed: r.v!, aad: dekAad({ tenantId: r.tenantId, walletId: r.id }) })), last: rows.at(-1)?.id }
    },
    async write(deps, item, next) {
      const r = await deps.database.write((tx) => tx.update(wallets).set({ dataKeyWrapped: next, keyVersion: Sealer.versionOf(next) })
        .where(and(eq(wallets.id, item.key), eq(wallets.dataKeyWrapped, item.sealed))).returning({ id: wallets.id }))
      return r.length === 1
    },
    async all(deps) {
      return (await deps.database.db.select({ v: wallets.dataKeyWrapped }).from(wallets).where(isNotNull(wallets.dataKeyWrapped))).map((r) => r.v!)
    },
  },
  {
    name: 'outbox mail.send (not yet queued)',
    async scan(deps, current, after, limit) {
      const rows = await deps.database.db.select({ id: outbox.id, payload: outbox.payload }).from(outbox)
        .where(and(eq(outbox.topic, MAIL_TOPIC), isNull(outbox.dispatchedAt), gt(outbox.id, after))).orderBy(asc(outbox.id)).limit(limit)
      // the payload is JSON, so the version is checked here rather than in SQL
      const items = rows.map((r) => ({ key: r.id, sealed: String(r.payload.sealed ?? ''), aad: mailAad(r.id) }))
      return { items: items.filter((i) => i.sealed && Sealer.versionOf(i.sealed) !== current), last: rows.at(-1)?.id }
    },
    async write(deps, item, next) {
      return deps.database.write(async (tx) => {
        const row = await tx.select({ payload: outbox.payload }).from(outbox).where(and(eq(outbox.id, item.key), isNull(outbox.dispatchedAt))).get()
        if (!row || row.payload.sealed !== item.sealed) return false
        await tx.update(outbox).set({ payload: { ...row.payload, sealed: next } }).where(eq(outbox.id, item.key))
        return true
      })
    },
    async all(deps) {
      const rows = await deps.database.db.select({ payload: outbox.payload }).from(outbox).where(and(eq(outbox.topic, MAIL_TOPIC), isNull(outbox.dispatchedAt)))
      return rows.map((r) => String(r.payload.sealed ?? '')).filter(Boolean)
    },
  },
]

/** Bank ramp credentials live inside the tenant's settings JSON: a tenant's whole settings are one item. */
function bankRampColumn(): Column {
  type Ramp = { apiKeySealed?: string | null; webhookKeySealed?: string | null }
  const fields = [['apiKeySealed', 'apiKey'], ['webhookKeySealed', 'webhookKey']] as const
  const sealedOf = (settings: Record<string, unknown>) => {
    const out: Array<{ env: 'sandbox' | 'production'; field: (typeof fields)[number]; value: string }> = []
    const ramp = (settings.bankRamp ?? {}) as Record<string, Ramp | undefined>
    for (const env of ['sandbox', 'production'] as const) {
      for (const field of fields) {
        const value = ramp[env]?.[field[0]]
        if (typeof value === 'string' && value) out.push({ env, field, value })
      }
    }
    return out
  }
  return {
    name: 'tenants.settings bankRamp credentials',
    async scan(deps, current, after, limit) {
      const rows = await deps.database.db.select({ id: tenants.id, settings: tenants.settings }).from(tenants)
        .where(gt(tenants.id, after)).orderBy(asc(tenants.id)).limit(limit)
      const items = rows.flatMap((r) => sealedOf(r.settings)
        .filter((s) => Sealer.versionOf(s.value) !== current)
        .map((s) => ({ key: `${r.id}|${s.env}|${s.field[0]}`, sealed: s.value, aad: bankRampAad(r.id, s.env, s.field[1]) })))
      return { items, last: rows.at(-1)?.id }
    },
    async write(deps, item, next) {
      const [tenantId, env, field] = item.key.split('|') as [string, 'sandbox' | 'production', 'apiKeySealed' | 'webhookKeySealed']
      return deps.database.write(async (tx) => {
        const row = await tx.select({ settings: tenants.settings }).from(tenants).where(eq(tenants.id, tenantId)).get()
        const ramp = (row?.settings.bankRamp ?? {}) as Record<string, Ramp | undefined>
        if (!row || ramp[env]?.[field] !== item.sealed) return false
        const settings = { ...row.settings, bankRamp: { ...ramp, [env]: { ...ramp[env], [field]: next } } }
        await tx.update(tenants).set({ settings }).where(eq(tenants.id, tenantId))
        return true
      })
    },
    async all(deps) {
      const rows = await deps.database.db.select({ settings: tenants.settings }).from(tenants)
      return rows.flatMap((r) => sealedOf(r.settings).map((s) => s.value))
    },
  }
}

export interface VersionSummary {
  currentVersion: number
  /** sealed values per key version over every column */
  byVersion: Record<string, number>
  /** values under another version than the current one: 0 once the old key can go */
  remaining: number
}

/** Counts sealed values per key version without changing anything (`slipway reseal --check`). */
export async function sealedVersions(deps: Deps): Promise<VersionSummary> {
  const currentVersion = deps.sealer.currentVersion
  const byVersion: Record<string, number> = {}
  for (const c of COLUMNS) {
    for (const v of await c.all(deps)) {
      const version = String(Sealer.versionOf(v))
      byVersion[version] = (byVersion[version] ?? 0) + 1
    }
  }
  const remaining = Object.entries(byVersion).filter(([v]) => Number(v) !== currentVersion).reduce((n, [, k]) => n + k, 0)
  return { currentVersion, byVersion, remaining }
}

export async function reseal(deps: Deps): Promise<ResealReport> {
  const current = deps.sealer.currentVersion
  const columns: Record<string, ColumnReport> = {}
  for (const c of COLUMNS) {
    const report: ColumnReport = { resealed: 0, failed: 0 }
    for (let after = '', page = await c.scan(deps, current, after, BATCH); page.last !== undefined; page = await c.scan(deps, current, after, BATCH)) {
      after = page.last
      for (const item of page.items) {
        let plain: Buffer
        try {
          plain = deps.sealer.openBytes(item.sealed, item.aad)
        } catch {
          report.failed++
          continue
        }
        const next = deps.sealer.seal(plain, item.aad)
        plain.fill(0)
        // false: the API changed the value meanwhile, and wrote it under the current key
        if (await c.write(deps, item, next)) report.resealed++
      }
    }
    columns[c.name] = report
  }
  return { ...(await sealedVersions(deps)), columns }
}
