/**
 * The licence report of this build, for `slipway --licences`. Run from a clone it reads the
 * project's package-lock.json, licences.allow.json and node_modules now; `npm run build`
 * replaces this module with the report computed at build time (scripts/build.ts), so the
 * binary prints the tree it was built from and reads no file.
 */
import { join } from 'node:path'
import { checkProject } from './gate'
import { licenceReport, type LicenceReport } from './report'

export function shippedLicences(): LicenceReport {
  return licenceReport(checkProject(join(import.meta.dir, '../../..')))
}
