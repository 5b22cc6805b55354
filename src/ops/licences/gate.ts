/**
 * The licence gate: every package of the production dependency tree in package-lock.json
 * (each entry not marked `dev`, optional platform packages included: they ship on their
 * platform) must be usable under the allowlist kept in the repository (licences.allow.json).
 * A package's licence is the lock's `license` field; where npm wrote none, the installed
 * package.json (`license`, or the old `licenses` list); where that has none either, the
 * allowlist's `withoutLicenceField` entry for that exact name@version, which names the
 * licence found upstream and where. Nothing is guessed from a LICENSE file's text: a
 * package without a field fails until someone has read its licence and written it down.
 * A file carried in the repository from a package (not installed from npm) is listed in the
 * allowlist's `vendored` by its path, with its licence, and checked like a package.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseSpdx, usableUnder } from './spdx'

export interface LockEntry {
  name?: string
  version?: string
  license?: string
  dev?: boolean
  optional?: boolean
  devOptional?: boolean
  link?: boolean
}
export interface LockFile {
  packages: Record<string, LockEntry>
}
export interface Allowlist {
  licences: Record<string, { why: string; onlyFor?: string[] }>
  withoutLicenceField: Record<string, { licence: string | null; where: string }>
  /** files carried in the repository, by path: the package and version they come from, their licence */
  vendored?: Record<string, { package: string; version: string; licence: string; where: string }>
}

export interface PackageLicence {
  name: string
  version: string
  /** where the lock puts it (node_modules/…) */
  path: string
  optional: boolean
  /** the licence expression as found, or null */
  licence: string | null
  source: 'lock' | 'package.json' | 'allowlist' | 'vendored' | 'none'
  /** the licence ids it is used under, or null when the allowlist allows none of its branches */
  usedUnder: string[] | null
  /** why it is refused */
  problem?: string
}

export interface GateResult {
  packages: PackageLicence[]
  violations: PackageLicence[]
}

/** The production packages of the lock: every entry but the root, links and those marked `dev`. */
export function productionEntries(lock: LockFile): { path: string; name: string; entry: LockEntry }[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !entry.dev && !entry.link)
    .map(([path, entry]) => ({ path, entry, name: entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length) }))
}

type Found = { licence: string | null; source: PackageLicence['source']; problem?: string }

/** `license` of an installed package.json: a string, an old `{ type }` object, or the old `licenses` list (all of them). */
function installedLicence(root: string, path: string): string | null {
  const file = join(root, path, 'package.json')
  if (!existsSync(file)) return null
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { license?: unknown; licenses?: unknown }
  const one = (l: unknown) => (typeof l === 'string' ? l : typeof l === 'object' && l && typeof (l as { type?: unknown }).type === 'string' ? (l as { type: string }).type : null)
  if (pkg.license !== undefined) return one(pkg.license)
  if (Array.isArray(pkg.licenses) && pkg.licenses.length > 0) {
    const ids = pkg.licenses.map(one)
    if (ids.every((id): id is string => id !== null)) return ids.length === 1 ? ids[0]! : ids.map((id) => `(${id})`).join(' AND ')
  }
  return null
}

/** A LICENSE-like file the package ships, to point at in the message (its text is not read as a licence). */
function licenceFile(root: string, path: string): string | null {
  const dir = join(root, path)
  if (!existsSync(dir)) return null
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f))
  return file ? join(path, file) : null
}

function findLicence(root: string, path: string, name: string, version: string, entry: LockEntry, allow: Allowlist): Found {
  if (entry.license) return { licence: entry.license, source: 'lock' }
  const installed = installedLicence(root, path)
  if (installed) return { licence: installed, source: 'package.json' }
  const listed = allow.withoutLicenceField[`${name}@${version}`]
  if (listed) {
    return listed.licence
      ? { licence: listed.licence, source: 'allowlist' }
      : { licence: null, source: 'allowlist', problem: `its withoutLicenceField entry in licences.allow.json names no licence yet (${listed.where.slice(0, 80)}…)` }
  }
  const file = licenceFile(root, path)
  return {
    licence: null, source: 'none',
    problem: `no licence field in the lock${existsSync(join(root, path)) ? ' nor in its package.json' : ' (not installed here)'}`
      + (file ? `; it ships ${file}` : '')
      + `: add "${name}@${version}" to withoutLicenceField in licences.allow.json with the licence found upstream and where`,
  }
}

/**
 * Checks the lock's production tree against the allowlist. `root` is the folder holding the
 * lock's node_modules (for the package.json fallback).
 */
export function checkLicences(lock: LockFile, allow: Allowlist, root: string): GateResult {
  const installed = productionEntries(lock).map(({ path, name, entry }) => ({ path, name, version: entry.version ?? '?', entry }))
  const vendored = Object.entries(allow.vendored ?? {}).map(([path, v]) => ({ path, name: v.package, version: v.version, entry: null, v }))
  const packages = [...installed, ...vendored].map(({ path, name, version, entry, v }: {
    path: string; name: string; version: string; entry: LockEntry | null; v?: { licence: string }
  }): PackageLicence => {
    const found: Found = entry ? findLicence(root, path, name, version, entry, allow)
      : existsSync(join(root, path)) ? { licence: v!.licence, source: 'vendored' }
      : { licence: v!.licence, source: 'vendored', problem: `${path}, listed in vendored in licences.allow.json, is not in the repository` }
    const base = { name, version, path, optional: !!entry?.optional || !!entry?.devOptional, licence: found.licence, source: found.source }
    if (!found.licence || found.problem) return { ...base, usedUnder: null, problem: found.problem }
    const expr = parseSpdx(found.licence)
    if (!expr) return {
      ...base,
      usedUnder: null,
      problem: `"${found.licence}" is not an SPDX licence expression: add "${name}@${version}" to withoutLicenceField only if its licence is one of the allowed ones`,
    }
    const allowed = (id: string) => {
      const rule = allow.licences[id]
      return !!rule && (!rule.onlyFor || rule.onlyFor.includes(name))
    }
    const usedUnder = usableUnder(expr, allowed)
    return usedUnder ? { ...base, usedUnder } : {
      ...base,
      usedUnder,
      problem: `${found.licence} is not in licences.allow.json${Object.entries(allow.licences).some(([id, r]) => r.onlyFor && found.licence!.includes(id)) ? ' for this package' : ''}`,
    }
  })
  packages.sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version))
  return { packages, violations: packages.filter((p) => p.problem) }
}

/** The gate on a project folder: its package-lock.json, its licences.allow.json and its node_modules. */
export function checkProject(root: string): GateResult {
  const read = <T>(file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as T
  return checkLicences(read<LockFile>('package-lock.json'), read<Allowlist>('licences.allow.json'), root)
}
