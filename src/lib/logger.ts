/**
 * JSON-lines logger. Callers pass only the fields they mean to log; nothing here
 * serialises a request, a body or a header wholesale, so tokens, passwords, keys
 * and secrets cannot slip in by accident. Lines are buffered and flushed on a short
 * timer (and at exit) so logging never blocks a request on a slow stdout.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>

/** One request's access-log line (written by the server, not by routes). */
export interface RequestLine {
  requestId: string
  method: string
  /** the URL's path, without its query */
  path: string
  status: number
  durationMs: number
}

export interface Logger {
  info(msg: string, fields?: LogFields): void
  /** the `request` line, formatted without building an object per request; the same JSON as `info('request', line)` */
  request(line: RequestLine): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  flush(): void
}

export interface LogSink {
  write(chunk: string): void
}

export function createLogger(opts: { silent?: boolean; sink?: LogSink } = {}): Logger {
  const sink: LogSink = opts.sink ?? { write: (chunk) => process.stdout.write(chunk) }
  let buffer: string[] = []
  let timer: ReturnType<typeof setTimeout> | null = null
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = null
    if (!buffer.length) return
    const chunk = buffer.join('')
    buffer = []
    sink.write(chunk)
  }
  const push = (line: string) => {
    buffer.push(line)
    if (buffer.length >= 256) flush()
    else if (!timer) {
      timer = setTimeout(flush, 50)
      ;(timer as { unref?: () => void }).unref?.()
    }
  }
  const emit = (level: string, msg: string, fields?: LogFields) => {
    if (!opts.silent) push(`${JSON.stringify({ time: isoNow(), level, msg, ...bounded(fields) })}\n`)
  }
  return {
    info: (m, f) => emit('info', m, f),
    request: (r) => {
      if (opts.silent) return
      const path = r.path.length > MAX_FIELD_CHARS ? boundedText(r.path) : r.path
      push(`{"time":"${isoNow()}","level":"info","msg":"request","requestId":${jsonText(r.requestId)},"method":${jsonText(r.method)},"path":${jsonText(path)},"status":${r.status},"durationMs":${Number.isFinite(r.durationMs) ? r.durationMs : null}}\n`)
    },
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    flush,
  }
}

let lastMs = 0
let lastIso = ''
/** The time as ISO 8601, formatted at most once per millisecond: a busy server logs dozens of lines in one. */
function isoNow(): string {
  const now = Date.now()
  if (now !== lastMs) {
    lastMs = now
    lastIso = new Date(now).toISOString()
  }
  return lastIso
}

/** Longest text a log field keeps: a client can send a 10,000-character path, and a log line must stay a line. */
export const MAX_FIELD_CHARS = 512

function bounded(fields: LogFields | undefined): LogFields | undefined {
  if (!fields) return fields
  let out: LogFields | undefined
  // a plain loop: this runs for every request's log line, and Object.entries allocates an array per field
  for (const k in fields) {
    const v = fields[k]
    if (typeof v === 'string' && v.length > MAX_FIELD_CHARS) (out ??= { ...fields })[k] = boundedText(v)
  }
  return out ?? fields
}

/** Characters a JSON string must escape. Request ids, methods and URL paths (percent-encoded by the URL parser) rarely hold any. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/

/** The same as `JSON.stringify(v)` for a string, without its cost when nothing needs escaping. */
export function jsonText(v: string): string {
  return NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`
}

function boundedText(v: string): string {
  return `${v.slice(0, MAX_FIELD_CHARS)}…(${v.length} chars)`
}

/**
 * What may be logged of an unexpected error. Query errors carry their SQL parameters
 * (password hashes, sealed keys), so only the driver's own message is kept for them.
 */
export function errorSummary(err: unknown): LogFields {
  if (!(err instanceof Error)) return { errorName: typeof err }
  const cause = (err as { cause?: unknown }).cause
  const fromQuery = err.message.startsWith('Failed query')
  const message = fromQuery && cause instanceof Error ? cause.message : err.message
  const frames = (err.stack ?? '').split('\n').filter((l) => l.trimStart().startsWith('at ')).slice(0, 6).map((l) => l.trim())
  return { errorName: err.name, errorMessage: message.slice(0, 500), errorStack: frames.join(' | ') }
}
