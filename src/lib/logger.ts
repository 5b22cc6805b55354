/**
 * JSON-lines logger. Callers pass only the fields they mean to log; nothing here
 * serialises a request, a body or a header wholesale, so tokens, passwords, keys
 * and secrets cannot slip in by accident. Lines are buffered and flushed on a short
 * timer (and at exit) so logging never blocks a request on a slow stdout.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
  info(msg: string, fields?: LogFields): void
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
  const emit = (level: string, msg: string, fields?: LogFields) => {
    if (opts.silent) return
    buffer.push(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...bounded(fields) })}\n`)
    if (buffer.length >= 256) flush()
    else if (!timer) {
      timer = setTimeout(flush, 50)
      ;(timer as { unref?: () => void }).unref?.()
    }
  }
  return {
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    flush,
  }
}

/** Longest text a log field keeps: a client can send a 10,000-character path, and a log line must stay a line. */
export const MAX_FIELD_CHARS = 512

function bounded(fields: LogFields | undefined): LogFields | undefined {
  if (!fields) return fields
  let out: LogFields | undefined
  // a plain loop: this runs for every request's log line, and Object.entries allocates an array per field
  for (const k in fields) {
    const v = fields[k]
    if (typeof v === 'string' && v.length > MAX_FIELD_CHARS) (out ??= { ...fields })[k] = `${v.slice(0, MAX_FIELD_CHARS)}…(${v.length} chars)`
  }
  return out ?? fields
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
