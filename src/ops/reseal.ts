/**
 * `slipway reseal`: moves every value sealed under an earlier MASTER_KEY version to the
 * current one, so the old key can be dropped. See docs/operations.md, "Rotating MASTER_KEY".
 *
 * Sealed values, with the associated data that binds each to its row, and the file that lists them:
 * - app_meta `jwt_secret` (the generated JWT key)                 `app_meta:jwt_secret`            deps.ts
 * - tenants.api_secret_sealed                                     `tenant:<id>:api_secret`         modules/tenants/sealed.ts
 * - tenants.settings bankRamp.<env>.apiKeySealed / webhookKeySealed `tenant:<id>:bankRamp:<env>:<field>` modules/tenants/sealed.ts
 * - webhooks.secret_sealed                                        `webhook:<tenant>:<id>:secret`   modules/webhooks/repo.ts
 * - wallets.data_key_wrapped (the per-wallet data key; the private key under it is untouched) `wallet:<tenant>:<id>:dek` modules/wallets/sealed.ts
 * - outbox rows of `mail.send` not yet handed to the queue         `mail:<job id>`                  modules/mail/sealed.ts
 * - ramp_payment_methods.iban (a virtual IBAN)                   `ramp_payment_methods:<tenant>:<id>:iban` modules/ramp/sealed.ts
 * - mpc_service_shares.share_sealed (the service party's DKLs23 key share) `mpc_share:<tenant>:<dkg session>` modules/mpc/sealed.ts
 * - ramp_payout_quotes.ramp_payment_method_id (a beneficiary's id, `Bank/Sepa/<IBAN>`) `ramp_payout_quotes:<tenant>:<id>:ramp_payment_method_id` modules/ramp/sealed.ts
 *
 * The two ramp columns were written in clear by earlier versions: reseal seals such a value
 * (counted as resealed), and the version count shows them as `clear` until it has.
 *
 * Rows are read in primary-key order, a page at a time; each value is rewritten in its own
 * write transaction, on condition that it is still the value read, so a secret rotated by
 * the API in the meantime is left as the API wrote it. An interrupted run loses nothing. Running it again is harmless: values already
 * under the current version are skipped. A value that opens with none of the configured
 * keys is counted as failed and left alone; the command then exits non-zero.
 */
import { coreSealedColumns, type Deps } from '../deps'
import type { SealedColumn } from '../db/sealed-columns'
import { Sealer } from '../lib/crypto'
import { sealedColumns as gasColumns } from '../modules/gas-sponsorship'
import { sealedColumns as mailColumns } from '../modules/mail'
import { sealedColumns as mpcColumns } from '../modules/mpc'
import { sealedColumns as rampColumns } from '../modules/ramp'
import { sealedColumns as tenantColumns } from '../modules/tenants'
import { sealedColumns as walletColumns } from '../modules/wallets'
import { sealedColumns as webhookColumns } from '../modules/webhooks'

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

/** Every sealed column, each listed by the module that owns it (src/db/sealed-columns.ts says how). */
const COLUMNS: SealedColumn[] = [...coreSealedColumns, ...tenantColumns, ...webhookColumns, ...walletColumns, ...mailColumns, ...rampColumns, ...mpcColumns, ...gasColumns]

export interface VersionSummary {
  currentVersion: number
  /** sealed values per key version over every column (`clear`: values an earlier version wrote in clear) */
  byVersion: Record<string, number>
  /** values under another version than the current one: 0 once the old key can go */
  remaining: number
}

/** Counts sealed values per key version without changing anything (`slipway reseal --check`). */
export async function sealedVersions(deps: Deps): Promise<VersionSummary> {
  const currentVersion = deps.sealer.currentVersion
  const byVersion: Record<string, number> = {}
  for (const c of COLUMNS) {
    for (const v of await c.all(deps.database.db)) {
      const version = Sealer.isSealed(v) ? String(Sealer.versionOf(v)) : 'clear'
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
    for (let after = '', page = await c.scan(deps.database.db, current, after, BATCH); page.last !== undefined; page = await c.scan(deps.database.db, current, after, BATCH)) {
      after = page.last
      for (const item of page.items) {
        let plain: Buffer
        try {
          plain = item.clear ? Buffer.from(item.sealed) : deps.sealer.openBytes(item.sealed, item.aad)
        } catch {
          report.failed++
          continue
        }
        const next = deps.sealer.seal(plain, item.aad)
        plain.fill(0)
        // false: the API changed the value meanwhile, and wrote it under the current key
        if (await c.write(deps.database, item, next)) report.resealed++
      }
    }
    columns[c.name] = report
  }
  return { ...(await sealedVersions(deps)), columns }
}
