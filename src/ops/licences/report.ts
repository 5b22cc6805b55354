/**
 * What `slipway --licences` prints and docs/operations.md lists: the licences of the
 * production dependency tree, counted by licence, then the notable packages (every licence
 * other than the common permissive ones, a choice between licences, a licence read from
 * somewhere other than the lock) and any package the gate refuses.
 */
import { prose } from '../../http/prose'
import type { GateResult, PackageLicence } from './gate'

/** Licences so common and so permissive that a package under one of them is counted, not named. */
const PLAIN = new Set(['MIT', 'ISC', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', '0BSD'])

export interface NotablePackage {
  package: string
  licence: string | null
  usedUnder: string[] | null
  note: string
}

export interface LicenceReport {
  total: number
  groups: { licence: string; count: number }[]
  notable: NotablePackage[]
  refused: NotablePackage[]
}

const SOURCE_NOTE: Record<PackageLicence['source'], string> = {
  lock: '',
  'package.json': 'licence from its package.json, the lock has none',
  allowlist: 'no licence field: licence found upstream, recorded in licences.allow.json',
  vendored: 'a file carried in the repository, not installed from npm: recorded in licences.allow.json',
  none: 'no licence found',
}

function note(p: PackageLicence): string {
  const source = p.source === 'vendored' ? `carried in the repository as ${p.path}, not installed from npm: recorded in licences.allow.json` : SOURCE_NOTE[p.source]
  const parts = [p.problem ?? '', source]
  if (p.usedUnder && p.licence && p.usedUnder.join() !== p.licence.replace(/[()]/g, '')) parts.push(`used under ${p.usedUnder.join(' AND ')}`)
  return parts.filter(Boolean).join('; ')
}

export function licenceReport(result: GateResult): LicenceReport {
  const counts = new Map<string, number>()
  for (const p of result.packages) counts.set(p.licence ?? '(none)', (counts.get(p.licence ?? '(none)') ?? 0) + 1)
  const view = (p: PackageLicence): NotablePackage => ({ package: `${p.name}@${p.version}`, licence: p.licence, usedUnder: p.usedUnder, note: note(p) })
  return {
    total: result.packages.length,
    groups: [...counts].map(([licence, count]) => ({ licence, count })).sort((a, b) => b.count - a.count || a.licence.localeCompare(b.licence)),
    notable: result.packages.filter((p) => !p.problem && (!PLAIN.has(p.licence ?? '') || p.source !== 'lock')).map(view),
    refused: result.violations.map(view),
  }
}

/**
 * The runtime inside the compiled binary is not an npm dependency's code: it is Bun
 * itself (the `bun` package), which statically links other libraries.
 */
export const RUNTIME_NOTE = prose`
  The compiled binary also carries the Bun runtime (MIT), which statically links JavaScriptCore and
  WebCore from WebKit (LGPL-2.0) and other libraries under their own licences, listed in Bun's
  LICENSE.md (bun.com/docs/project/license).`

export function formatReport(report: LicenceReport, version: string): string {
  const width = Math.max(...report.groups.map((g) => g.licence.length))
  const lines = [
    `Slipway ${version}: licences of its production dependencies (package-lock.json, without dev packages; platform packages of every platform included), ${report.total} packages`,
    '',
    ...report.groups.map((g) => `  ${g.licence.padEnd(width)}  ${String(g.count).padStart(4)}`),
    '',
    'Notable:',
    ...report.notable.map((n) => `  ${n.package}: ${n.licence}${n.note ? ` (${n.note})` : ''}`),
  ]
  if (report.refused.length) lines.push('', 'REFUSED by the licence gate (licences.allow.json):', ...report.refused.map((n) => `  ${n.package}: ${n.licence ?? '(none)'}: ${n.note}`))
  lines.push('', RUNTIME_NOTE)
  return lines.join('\n')
}

/** The table and list docs/operations.md holds (tests/docs check it against the tree). */
export function licencesMarkdown(report: LicenceReport): string {
  return [
    '| licence | packages |',
    '| --- | ---: |',
    ...report.groups.map((g) => `| ${g.licence} | ${g.count} |`),
    `| **all** | **${report.total}** |`,
    '',
    ...report.notable.map((n) => `- \`${n.package}\`: ${n.licence}${n.note ? ` (${n.note})` : ''}`),
    ...report.refused.map((n) => `- \`${n.package}\`: ${n.licence ?? '(none)'}: **refused by the gate**: ${n.note}`),
  ].join('\n')
}
