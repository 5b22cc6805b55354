/**
 * A copy of Slipway with some modules left out of the app: their routes (src/app.ts) and their jobs,
 * event types and feed sources (src/services.ts) removed, so nothing imports their faces from there.
 * For scripts/bench/health-tail.ts: what `/health`'s tail owes to the code loaded at start, measured on
 * a whole Slipway with less code rather than on the bare handler. Not a product: a module
 * another kept module imports still loads.
 *
 *   bun scripts/bench/trimmed-app.ts /tmp/half swaps ramp lending …
 *   HEALTH_TAIL_VARIANTS='half:ROOT=/tmp/half' bun scripts/bench/health-tail.ts
 *
 * The copy has src/, package.json, bunfig.toml and tsconfig.json, with node_modules and drizzle/ linked.
 * It stops with an error if a left-out module's export is still named in app.ts or services.ts.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const [dest, ...drop] = process.argv.slice(2)
if (!dest || drop.length === 0) throw new Error('usage: bun scripts/bench/trimmed-app.ts <dir> <module>...')
const root = resolve(import.meta.dir, '../..')
const out = resolve(dest)
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
for (const f of ['src', 'package.json', 'bunfig.toml', 'tsconfig.json']) cpSync(join(root, f), join(out, f), { recursive: true })
for (const f of ['node_modules', 'drizzle']) symlinkSync(join(root, f), join(out, f))

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Removes the left-out modules' imports from `file`, then `edit` removes their uses; no name may remain. */
function trim(file: string, edit: (text: string, names: string[]) => string) {
  const path = join(out, 'src', file)
  let text = readFileSync(path, 'utf8')
  const names: string[] = []
  for (const m of drop) {
    const re = new RegExp(`^import \\{([^}]*)\\} from '\\./modules/${escape(m)}'\\n`, 'm')
    const found = re.exec(text)
    if (!found) continue
    names.push(...found[1]!.split(',').map((n) => n.trim().replace(/^type /, '')).filter(Boolean))
    text = text.replace(re, '')
  }
  text = edit(text, names)
  const left = names.filter((n) => new RegExp(`\\b${escape(n)}\\b`).test(text))
  if (left.length) throw new Error(`${file} still uses ${left.join(', ')}: those modules cannot be left out this way`)
  writeFileSync(path, text)
}

trim('app.ts', (text, names) => names.reduce((t, n) => t.replace(new RegExp(`^.*\\.use\\(${escape(n)}\\(.*\\n`, 'gm'), ''), text))
trim('services.ts', (text, names) => names.reduce((t, n) => t
  .replace(new RegExp(`^\\s*${escape(n)}\\(runner\\)\\n`, 'gm'), '')
  .replace(new RegExp(`\\.\\.\\.${escape(n)}(, )?`, 'g'), '')
  .replace(new RegExp(`${escape(n)}\\(deps\\)(, )?`, 'g'), ''), text))
console.log(`${out}: Slipway without ${drop.join(', ')}`)
