/**
 * Reuses libSQL's prepared statements.
 *
 * @libsql/client prepares a new native statement for every `execute` on a local file and
 * leaves it to the garbage collector to free. Each holds a few KB of native memory that
 * the JavaScript heap does not see, so under load the engine collects late and resident
 * memory climbs (about 170 MiB under the bearer read, where the rest of the process needs
 * under 100). Keeping one statement per SQL text per connection makes a request allocate
 * none: drizzle's SQL texts are a bounded set (values are bound, never inlined), and the
 * cache is bounded anyway. Statements are safe to reuse: the client sets their modes
 * (`raw`, `safeIntegers`) before each run, each run resets them, and SQLite re-prepares
 * one whose table changed.
 */
import Database from 'libsql'

const MAX_PER_CONNECTION = 500
const CACHE = Symbol('slipway.statements')
const INSTALLED = Symbol.for('slipway.statement-cache')

type Prepare = (this: object, sql: string) => unknown

export function installStatementCache() {
  const proto = Database.prototype as unknown as { prepare: Prepare; [INSTALLED]?: true }
  if (proto[INSTALLED]) return
  const prepare = proto.prepare
  proto.prepare = function (this: { [CACHE]?: Map<string, unknown> }, sql: string) {
    const cache = (this[CACHE] ??= new Map())
    let stmt = cache.get(sql)
    if (stmt) return stmt
    stmt = prepare.call(this, sql)
    if (cache.size >= MAX_PER_CONNECTION) cache.delete(cache.keys().next().value!)
    cache.set(sql, stmt)
    return stmt
  }
  proto[INSTALLED] = true
}
