/**
 * The licence gate (docs/operations.md, Licences): checks the production dependency tree
 * of package-lock.json against licences.allow.json and exits 1 naming each package it
 * refuses. `--report` prints what `slipway --licences` prints; `--markdown` prints the
 * table docs/operations.md holds; `--root <dir>` checks another folder's lock, allowlist
 * and node_modules. tests/ops/licences-tree.test.ts runs the same check in `npm test`.
 *   ./node_modules/.bin/bun scripts/licences.ts [--report | --markdown] [--root <dir>]
 */
import { join, resolve } from 'node:path'
import { checkProject } from '../src/ops/licences/gate'
import { formatReport, licenceReport, licencesMarkdown } from '../src/ops/licences/report'
import { version } from '../package.json'

const args = process.argv.slice(2)
const rootAt = args.indexOf('--root')
const root = rootAt >= 0 && args[rootAt + 1] ? resolve(args[rootAt + 1]!) : join(import.meta.dir, '..')
const result = checkProject(root)
if (args.includes('--report')) console.log(formatReport(licenceReport(result), version))
else if (args.includes('--markdown')) console.log(licencesMarkdown(licenceReport(result)))
else console.log(`${result.packages.length} production packages of ${join(root, 'package-lock.json')} checked against licences.allow.json: ${result.violations.length} refused`)
for (const v of result.violations) console.error(`refused: ${v.name}@${v.version} (${v.path}): ${v.licence ?? 'no licence'}: ${v.problem}`)
process.exit(result.violations.length ? 1 : 0)
