/**
 * JSON-lines logger. Callers pass only the fields they mean to log; nothing here
 * serialises a request, a body or a header wholesale, so tokens, passwords, keys
 * and secrets cannot slip in by accident. Lines are buffered and flushed on a short
 * timer (and at exit) so logging never blocks a request on a slow stdout.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
  info(msg: string, fields?: LogFields): void
  /**
   * The `request` line: the same JSON as `info('request', { requestId, method, path, status, durationMs })`,
   * written straight into the buffer as bytes, without an object or a string per request.
   */
  request(requestId: string, method: string, path: string, status: number, durationMs: number): void
  /**
   * `request` for one method, path and status, fixed in advance (a route the server answers from its
   * own router): the line's middle is encoded once, and each line copies it whole.
   */
  requestOf(method: string, path: string, status: number): (requestId: string, durationMs: number) => void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  flush(): void
}

/**
 * Where flushed lines go: UTF-8 bytes, whole lines. The chunk is the logger's own buffer, valid
 * during the call only (it is written over afterwards): a sink that keeps it copies it.
 */
export interface LogSink {
  write(chunk: Uint8Array): void
}

/**
 * Standard output. Bun's `process.stdout.write` copies what it cannot write at once (a full
 * pipe), so the buffer goes to it as it is (tests/platform/logging.test.ts checks this, in a
 * child process with a pipe nobody reads); any other runtime (the Deno entry) gets a copy. A
 * 48 KiB copy at every flush was allocation on each request line's account, which the
 * engine counts toward its next collection (docs/benchmarks.md, "/health").
 */
const stdoutSink = (): LogSink => {
  const copies = typeof Bun === 'undefined'
  return { write: (chunk) => process.stdout.write(copies ? chunk.slice() : chunk) }
}

/**
 * LOG_LEVEL: the usual names, each writing the lines at its level and above. Slipway writes
 * `info` (the request lines and the process's life), `warn` and `error` lines; nothing
 * below info, so `trace` and `debug` show what `info` shows, and nothing at `fatal` (a start
 * that fails says so on stderr and exits), so `fatal` shows what `silent` shows.
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
const SEVERITY: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity }

/** `level` (default `info`) sets the least severe line written; `silent: true` is `level: 'silent'`. */
export function createLogger(opts: { level?: LogLevel; silent?: boolean; sink?: LogSink } = {}): Logger {
  const sink: LogSink = opts.sink ?? stdoutSink()
  const least = opts.silent ? Infinity : SEVERITY[opts.level ?? 'info']
  const writes = (level: 'info' | 'warn' | 'error') => SEVERITY[level] >= least
  const infoOn = writes('info')
  const out = new LineBuffer()
  let timer: ReturnType<typeof setTimeout> | null = null
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = null
    if (!out.n) return
    // no copy: the sink copies what it keeps (LogSink), and the buffer is reused
    const n = out.n
    out.n = 0
    sink.write(out.buf.subarray(0, n))
  }
  const written = () => {
    if (out.n >= FLUSH_BYTES) flush()
    else if (!timer) {
      timer = setTimeout(flush, 50)
      ;(timer as { unref?: () => void }).unref?.()
    }
  }
  const emit = (level: 'info' | 'warn' | 'error', msg: string, fields?: LogFields) => {
    if (!writes(level)) return
    out.text(`${JSON.stringify({ time: isoNow(), level, msg, ...bounded(fields) })}\n`)
    written()
  }
  return {
    info: (m, f) => emit('info', m, f),
    request: (requestId, method, path, status, durationMs) => {
      if (!infoOn) return
      out.set(requestHead())
      out.json(requestId)
      out.bytes(METHOD)
      out.json(method)
      out.bytes(PATH)
      out.json(path.length > MAX_FIELD_CHARS ? boundedText(path) : path)
      out.bytes(STATUS)
      out.number(status)
      out.bytes(DURATION)
      out.number(durationMs)
      out.bytes(LINE_END)
      written()
    },
    requestOf: (method, path, status) => {
      // what `request` writes between the id and the duration's value, as the same JSON
      const middle = utf8.encode(`,"method":${JSON.stringify(method)},"path":${JSON.stringify(path.length > MAX_FIELD_CHARS ? boundedText(path) : path)}`
        + `,"status":${JSON.stringify(status)},"durationMs":`)
      return (requestId, durationMs) => {
        if (!infoOn) return
        out.set(requestHead())
        out.json(requestId)
        out.set(middle)
        out.number(durationMs)
        out.bytes(LINE_END)
        written()
      }
    },
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    flush,
  }
}

/** Flushed at this many bytes (about 300 request lines) or after 50 ms, whichever comes first. */
const FLUSH_BYTES = 48 * 1024
const utf8 = new TextEncoder()
const ascii = (s: string) => utf8.encode(s)
/**
 * The request line up to its id: `{"time":"…","level":"info","msg":"request","requestId":`. Its time is
 * written into it when the millisecond changes, so a line copies the whole head at once (`Uint8Array.set`:
 * about 20 ns for its 78 bytes, where a byte loop took 85).
 */
const REQUEST_HEAD = ascii(`{"time":"${new Date(0).toISOString()}","level":"info","msg":"request","requestId":`)
const TIME_AT = 9
let headMs = Number.NaN
function requestHead(): Uint8Array {
  const now = Date.now()
  if (now === headMs) return REQUEST_HEAD
  const iso = isoAt(now)
  // an ISO time is 24 characters from year 0 to 9999; any other gets a head of its own
  if (iso.length !== 24) return ascii(`{"time":"${iso}","level":"info","msg":"request","requestId":`)
  headMs = now
  for (let i = 0; i < 24; i++) REQUEST_HEAD[TIME_AT + i] = iso.charCodeAt(i)
  return REQUEST_HEAD
}
const METHOD = ascii(',"method":')
const PATH = ascii(',"path":')
const STATUS = ascii(',"status":')
const DURATION = ascii(',"durationMs":')
const LINE_END = ascii('}\n')

/**
 * A growable byte buffer of log lines. The request line's fields are copied in character
 * by character when they are plain ASCII that JSON need not escape (ids, methods and URL
 * paths, which the URL parser percent-encodes, nearly always are); anything else goes
 * through `JSON.stringify` and the encoder, exactly as `info` would write it.
 */
class LineBuffer {
  buf = new Uint8Array(64 * 1024)
  n = 0

  private room(bytes: number) {
    if (this.n + bytes <= this.buf.length) return
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.n + bytes))
    bigger.set(this.buf.subarray(0, this.n))
    this.buf = bigger
  }

  /** A short constant (a line's field names): copied in a loop, cheaper than `set` for a few dozen bytes. */
  bytes(b: Uint8Array) {
    this.room(b.length)
    const { buf } = this
    let n = this.n
    for (let i = 0; i < b.length; i++) buf[n++] = b[i]!
    this.n = n
  }

  /** A longer constant (a request line's head or middle): one copy. */
  set(b: Uint8Array) {
    this.room(b.length)
    this.buf.set(b, this.n)
    this.n += b.length
  }

  /** Text known to be ASCII. */
  ascii(s: string) {
    this.room(s.length)
    const { buf } = this
    let n = this.n
    for (let i = 0; i < s.length; i++) buf[n++] = s.charCodeAt(i)
    this.n = n
  }

  /** Any text, UTF-8 encoded. */
  text(s: string) {
    // at most 3 bytes per UTF-16 unit
    this.room(s.length * 3)
    this.n += utf8.encodeInto(s, this.buf.subarray(this.n)).written
  }

  /** A JSON string: `JSON.stringify(s)`. */
  json(s: string) {
    this.room(s.length + 2)
    const { buf } = this
    let n = this.n
    buf[n++] = 34
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      // a control character, a quote, a backslash or anything past ASCII: the general way
      if (c < 0x20 || c > 0x7e || c === 34 || c === 92) return this.text(JSON.stringify(s))
      buf[n++] = c
    }
    buf[n++] = 34
    this.n = n
  }

  /** A number as JSON writes it (`null` when not finite); integers and hundredths without a string. */
  number(v: number) {
    if (!Number.isFinite(v)) return this.ascii('null')
    const cents = Math.round(v * 100)
    if (v < 0 || cents > 1e12 || cents / 100 !== v) return this.ascii(String(v))
    this.digits(Math.floor(cents / 100))
    const frac = cents % 100
    if (frac) {
      this.room(3)
      this.buf[this.n++] = 46
      this.buf[this.n++] = 48 + Math.floor(frac / 10)
      if (frac % 10) this.buf[this.n++] = 48 + (frac % 10)
    }
  }

  private digits(v: number) {
    let len = 1
    for (let x = v; x >= 10; x = Math.floor(x / 10)) len++
    this.room(len)
    let n = this.n + len
    this.n = n
    do {
      this.buf[--n] = 48 + (v % 10)
      v = Math.floor(v / 10)
    } while (v > 0)
  }
}

let lastMs = 0
let lastIso = ''
/** The time as ISO 8601, formatted at most once per millisecond: a busy server logs dozens of lines in one. */
function isoNow(): string {
  return isoAt(Date.now())
}
function isoAt(now: number): string {
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
