/**
 * The tenants' sealed values, for `slipway reseal` (src/ops/reseal.ts): the API secret,
 * and the bank ramp and card onramp credentials kept inside the settings JSON. Read and written through
 * tenants/repo.ts. The scan pages through the platform-wide tenant list (newest first),
 * its cursor the offset: a tenant created meanwhile shifts later pages by one, so a row
 * may be read twice (then already under the current version, and skipped) but never
 * missed, as tenants are never deleted.
 */
import type { Db } from '../../db/client'
import type { SealedColumn, SealedItem } from '../../db/sealed-columns'
import { Sealer } from '../../lib/crypto'
import { findTenant, listTenants, updateTenant, type TenantRow, secretAad } from './repo'
import { bankRampAad, cardOnrampAad } from './settings'

type Ramp = { apiKeySealed?: string | null; webhookKeySealed?: string | null }
const RAMP_FIELDS = [['apiKeySealed', 'apiKey'], ['webhookKeySealed', 'webhookKey']] as const

/** One page of tenants after the cursor, and the next cursor (undefined at the end). */
async function tenantsAfter(db: Db, after: string, limit: number): Promise<{ rows: TenantRow[]; last?: string }> {
  const offset = Number(after || 0)
  const { rows } = await listTenants(db, null, limit, offset)
  return { rows, last: rows.length ? String(offset + rows.length) : undefined }
}

async function everyTenant(db: Db): Promise<TenantRow[]> {
  const out: TenantRow[] = []
  for (let page = await tenantsAfter(db, '', 1000); page.last !== undefined; page = await tenantsAfter(db, page.last, 1000)) out.push(...page.rows)
  return out
}

const apiSecretColumn: SealedColumn = {
  name: 'tenants.api_secret_sealed',
  async scan(db, current, after, limit) {
    const { rows, last } = await tenantsAfter(db, after, limit)
    const items = rows.filter((r) => Sealer.versionOf(r.apiSecretSealed) !== current).map((r) => ({ key: r.id, sealed: r.apiSecretSealed, aad: secretAad(r.id) }))
    return { items, last }
  },
  write(database, item, next) {
    return database.write(async (tx) => {
      const row = await findTenant(tx, item.key)
      if (!row || row.apiSecretSealed !== item.sealed) return false
      await updateTenant(tx, item.key, { apiSecretSealed: next })
      return true
    })
  },
  async all(db) {
    return (await everyTenant(db)).map((r) => r.apiSecretSealed)
  },
}

/** Partner credentials live inside the tenant's settings JSON (`bankRamp`, `cardOnramp`): each sealed field is one item, its key `<tenant>|<env>|<field>`. */
type Group = 'bankRamp' | 'cardOnramp'
function sealedOf(settings: Record<string, unknown>, group: Group) {
  const out: Array<{ env: 'sandbox' | 'production'; field: (typeof RAMP_FIELDS)[number]; value: string }> = []
  const ramp = (settings[group] ?? {}) as Record<string, Ramp | undefined>
  for (const env of ['sandbox', 'production'] as const) {
    for (const field of RAMP_FIELDS) {
      const value = ramp[env]?.[field[0]]
      if (typeof value === 'string' && value) out.push({ env, field, value })
    }
  }
  return out
}

function settingsColumn(group: Group, name: string, aadOf: (tenantId: string, env: string, field: string) => string): SealedColumn {
  return {
    name,
    async scan(db, current, after, limit) {
      const { rows, last } = await tenantsAfter(db, after, limit)
      const items: SealedItem[] = rows.flatMap((r) => sealedOf(r.settings, group)
        .filter((s) => Sealer.versionOf(s.value) !== current)
        .map((s) => ({ key: `${r.id}|${s.env}|${s.field[0]}`, sealed: s.value, aad: aadOf(r.id, s.env, s.field[1]) })))
      return { items, last }
    },
    write(database, item, next) {
      const [tenantId, env, field] = item.key.split('|') as [string, 'sandbox' | 'production', 'apiKeySealed' | 'webhookKeySealed']
      return database.write(async (tx) => {
        const row = await findTenant(tx, tenantId)
        const ramp = (row?.settings[group] ?? {}) as Record<string, Ramp | undefined>
        if (!row || ramp[env]?.[field] !== item.sealed) return false
        await updateTenant(tx, tenantId, { settings: { ...row.settings, [group]: { ...ramp, [env]: { ...ramp[env], [field]: next } } } })
        return true
      })
    },
    async all(db) {
      return (await everyTenant(db)).flatMap((r) => sealedOf(r.settings, group).map((s) => s.value))
    },
  }
}

export const sealedColumns: SealedColumn[] = [
  apiSecretColumn,
  settingsColumn('bankRamp', 'tenants.settings bankRamp credentials', bankRampAad),
  settingsColumn('cardOnramp', 'tenants.settings cardOnramp credentials', cardOnrampAad),
]
