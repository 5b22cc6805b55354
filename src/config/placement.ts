/**
 * TENANT_PLACEMENT: which tenants live on a database of their own (docs/scaling.md). Either
 * the JSON itself or the path of a file holding it: an object from tenant id to the tenant's
 * database, a libSQL URL or `{ "url": ..., "authToken": ... }`. A sqld namespace is named by
 * the URL's host (`http://acme.db.internal:8080` is namespace `acme`). Unset: every tenant
 * on DATABASE_URL.
 */
import { existsSync, readFileSync } from 'node:fs'

export interface PlacementSetting {
  url: string
  authToken?: string
}

const URL_FORM = /^(file:|libsql:|https?:|wss?:)/

export function parsePlacement(raw: string | undefined, problems: string[]): Record<string, PlacementSetting> | undefined {
  if (raw === undefined) return undefined
  let text = raw
  if (!/^[[{]/.test(raw)) {
    if (!existsSync(raw)) {
      problems.push(`TENANT_PLACEMENT: "${raw}" is neither JSON nor a file that exists`)
      return undefined
    }
    text = readFileSync(raw, 'utf8')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    problems.push('TENANT_PLACEMENT: not valid JSON (an object from tenant id to database URL)')
    return undefined
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push('TENANT_PLACEMENT: must be an object from tenant id to database URL')
    return undefined
  }
  const out: Record<string, PlacementSetting> = {}
  for (const [tenantId, value] of Object.entries(parsed as Record<string, unknown>)) {
    const entry = typeof value === 'string' ? { url: value } : value as { url?: unknown; authToken?: unknown }
    if (!entry || typeof entry.url !== 'string' || !URL_FORM.test(entry.url) || (entry.authToken !== undefined && typeof entry.authToken !== 'string')) {
      problems.push(`TENANT_PLACEMENT: tenant "${tenantId}" needs a file:, libsql://, http(s):// or ws(s):// URL (a string, or { "url", "authToken" })`)
      continue
    }
    out[tenantId] = { url: entry.url, ...(entry.authToken ? { authToken: entry.authToken as string } : {}) }
  }
  return out
}
