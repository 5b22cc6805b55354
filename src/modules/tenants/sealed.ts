/**
 * The tenants' sealed values, for `slipway reseal` (src/ops/reseal.ts): the API secret,
 * and the bank ramp credentials kept inside the settings JSON.
 */
import { asc, eq, gt } from 'drizzle-orm'
import { tenants } from '../../db/schema'
import { sealedTextColumn, type SealedColumn } from '../../db/sealed-columns'
import { Sealer } from '../../lib/crypto'
import { secretAad } from './service'
import { bankRampAad } from './settings'

/** Bank ramp credentials live inside the tenant's settings JSON: each sealed field is one item, its key `<tenant>|<env>|<field>`. */
function bankRampColumn(): SealedColumn {
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
    async scan(db, current, after, limit) {
      const rows = await db.select({ id: tenants.id, settings: tenants.settings }).from(tenants)
        .where(gt(tenants.id, after)).orderBy(asc(tenants.id)).limit(limit)
      const items = rows.flatMap((r) => sealedOf(r.settings)
        .filter((s) => Sealer.versionOf(s.value) !== current)
        .map((s) => ({ key: `${r.id}|${s.env}|${s.field[0]}`, sealed: s.value, aad: bankRampAad(r.id, s.env, s.field[1]) })))
      return { items, last: rows.at(-1)?.id }
    },
    async write(database, item, next) {
      const [tenantId, env, field] = item.key.split('|') as [string, 'sandbox' | 'production', 'apiKeySealed' | 'webhookKeySealed']
      return database.write(async (tx) => {
        const row = await tx.select({ settings: tenants.settings }).from(tenants).where(eq(tenants.id, tenantId)).get()
        const ramp = (row?.settings.bankRamp ?? {}) as Record<string, Ramp | undefined>
        if (!row || ramp[env]?.[field] !== item.sealed) return false
        const settings = { ...row.settings, bankRamp: { ...ramp, [env]: { ...ramp[env], [field]: next } } }
        await tx.update(tenants).set({ settings }).where(eq(tenants.id, tenantId))
        return true
      })
    },
    async all(db) {
      const rows = await db.select({ settings: tenants.settings }).from(tenants)
      return rows.flatMap((r) => sealedOf(r.settings).map((s) => s.value))
    },
  }
}

export const sealedColumns: SealedColumn[] = [
  sealedTextColumn({ name: 'tenants.api_secret_sealed', table: tenants, id: tenants.id, value: tenants.apiSecretSealed, aad: (r) => secretAad(r.id) }),
  bankRampColumn(),
]
