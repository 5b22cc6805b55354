/**
 * Every command in a shell block (```sh, ```bash, ```shell) of the README and of docs/ names
 * something that exists: `npm run X` a script of package.json, `bun`/`node` a file that exists,
 * a path a file that exists, and any other program one of the tools the pages may assume
 * (listed below). A renamed script or a moved file fails here, not in a reader's terminal.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

const pkg = await Bun.file('package.json').json() as { scripts: Record<string, string> }
const pages = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

/** Programs the pages may name: shell built-ins, the tools the project installs, and common system tools. */
const PROGRAMS = new Set([
  // shell built-ins and utilities
  'cd', 'echo', 'eval', 'export', 'set', 'source', 'kill', 'sleep', 'cat', 'printf', 'test', 'wait', 'trap', 'read', 'unset', 'ls', 'mkdir', 'rm', 'cp', 'mv',
  'head', 'tail', 'grep', 'sed', 'tr', 'cut', 'xargs', 'env', 'du', 'find', 'wc', 'sort', 'date', 'xxd', 'base64', 'tee', 'true', 'false', 'for', 'do', 'done', 'if', 'then', 'fi',
  // programs the pages assume
  'npm', 'npx', 'bun', 'node', 'deno', 'curl', 'jq', 'openssl', 'sqlite3', 'sha256sum', 'tar', 'docker', 'git', 'wrk', 'apt-get', 'chromium', 'systemctl', 'journalctl',
  // the compiled binary (npm run build writes dist/slipway), and sqld (STACK.md)
  'slipway', 'sqld',
])
const NPM_COMMANDS = new Set(['ci', 'install', 'i', 'pack', 'ls', 'exec', 'view', 'audit'])

interface Command { page: string; line: string; words: string[] }

/** The shell blocks' commands: continuation lines joined, comments cut, split at `&&`, `||`, `;`, `|`, `&` and `$(`. */
function commands(page: string, text: string): Command[] {
  const out: Command[] = []
  for (const block of text.matchAll(/```(sh|bash|shell)\n([\s\S]*?)```/g)) {
    const lines = block[2]!.replace(/\\\n\s*/g, ' ').split('\n')
    for (const raw of lines) {
      const line = stripComment(raw).trim()
      if (!line) continue
      for (const part of line.split(/&&|\|\||;|\|(?!\|)|&(?!&)|\$\(|`/)) {
        const words = part.replace(/["')(]/g, ' ').trim().split(/\s+/).filter(Boolean)
        while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift()
        while (words.length && ['eval', 'time', 'exec', 'sudo', 'then', 'do', 'else'].includes(words[0]!)) words.shift()
        if (words.length && !/^[>\d]/.test(words[0]!)) out.push({ page, line: raw.trim(), words })
      }
    }
  }
  return out
}

/** The line without its comment: a `#` at the start or after a space, outside quotes. */
function stripComment(line: string): string {
  let quote: string | null = null
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote) {
      if (c === quote) quote = null
    } else if (c === '"' || c === '\'') quote = c
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i)
  }
  return line
}

/** Why a command names nothing that exists, or null when it does. */
function problem(words: string[]): string | null {
  const [program, ...args] = words
  if (!program) return null
  if (program.startsWith('$') || program.startsWith('-') || program.startsWith('{') || program === '\\') return null
  if (program === 'npm') {
    const rest = args.filter((a) => !a.startsWith('-'))
    const sub = rest[0]
    if (sub === 'run' || sub === 'run-script') return rest[1] && rest[1] in pkg.scripts ? null : `npm run ${rest[1]}: no such script in package.json`
    if (sub === 'start' || sub === 'test') return sub in pkg.scripts ? null : `npm ${sub}: no such script`
    return sub && NPM_COMMANDS.has(sub) ? null : `npm ${sub}: not an npm command the pages use`
  }
  if (program.includes('/')) return existsSync(program) || program.startsWith('/') ? null : `${program}: no such file`
  if (!PROGRAMS.has(program)) return `${program}: not a script, a file or a known program`
  if (['bun', 'node', 'deno'].includes(program)) {
    const file = args.find((a) => /\.(ts|js|mjs)$/.test(a) && !a.includes('*'))
    if (file && !file.startsWith('$') && !existsSync(file)) return `${program} ${file}: no such file`
  }
  return null
}

describe('commands in the README and docs', () => {
  const all = pages.flatMap((page) => commands(page, readFileSync(page, 'utf8')))

  test('the pages have shell blocks to check', () => {
    expect(all.length).toBeGreaterThan(40)
  })

  test('every command names a script, a file or a program that exists', () => {
    const bad = all.flatMap(({ page, line, words }) => {
      const why = problem(words)
      return why ? [`${page}: ${why} (in: ${line.slice(0, 120)})`] : []
    })
    expect(bad).toEqual([])
  })

  test('the check refuses a misspelt script, a missing file and an unknown program', () => {
    expect(problem(['npm', 'run', '-s', 'quickstrat'])).toContain('no such script')
    expect(problem(['bun', 'scripts/no-such-script.ts'])).toContain('no such file')
    expect(problem(['./scripts/nothing.sh'])).toContain('no such file')
    expect(problem(['frobnicate', '--all'])).toContain('not a script')
    expect(problem(['npm', 'run', '-s', 'quickstart-ramp'])).toBeNull()
    expect(problem(['bun', 'scripts/devnet.ts'])).toBeNull()
  })
})
