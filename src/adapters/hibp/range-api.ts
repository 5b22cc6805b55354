/**
 * Have I Been Pwned's Pwned Passwords range API with k-anonymity: only the first five
 * hex characters of the password's SHA-1 leave the process, and `Add-Padding: true`
 * makes every answer about the same size, so an observer of the (encrypted) answer
 * cannot tell which prefix was asked. Padding lines carry a count of 0 and are ignored.
 */
import { createHash } from 'node:crypto'
import { BreachServiceError, type BreachedPasswords } from './port'

export class HibpRangeApi implements BreachedPasswords {
  constructor(private readonly baseUrl: string, private readonly timeoutMs: number, private readonly fetchFn: typeof fetch = fetch) {}

  async occurrences(password: string): Promise<number> {
    const sha1 = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase()
    const prefix = sha1.slice(0, 5)
    const suffix = sha1.slice(5)
    let res: Response
    try {
      res = await this.fetchFn(`${this.baseUrl.replace(/\/+$/, '')}/range/${prefix}`, {
        headers: { 'Add-Padding': 'true', 'User-Agent': 'Slipway', Accept: 'text/plain' },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
    } catch (err) {
      throw new BreachServiceError(`breach service unreachable: ${(err as Error).name}`)
    }
    if (!res.ok) {
      await res.body?.cancel()
      throw new BreachServiceError(`breach service answered ${res.status}`)
    }
    let body: string
    try {
      body = await res.text()
    } catch (err) {
      throw new BreachServiceError(`breach service answer unreadable: ${(err as Error).name}`)
    }
    for (const line of body.split(/\r?\n/)) {
      const [s, c] = line.trim().split(':')
      if (s?.toUpperCase() !== suffix) continue
      const count = Number(c)
      // padding entries have a count of 0: not a breach
      return Number.isFinite(count) && count > 0 ? count : 0
    }
    return 0
  }
}
