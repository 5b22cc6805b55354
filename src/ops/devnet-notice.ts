/**
 * The start-up line that says which devnet settings this process read: `npm run devnet` writes
 * `SLIPWAY_DEVNET` (its file) and `SLIPWAY_DEVNET_SETTINGS` (the names) into `.env.devnet`, which
 * `npm start` reads. A `.env.devnet` in the working folder that was not read (a server started
 * another way, or before the devnet wrote it) is said too: the sandbox then talks to the
 * public testnets.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Config } from '../config'

export interface StartupNotice { level: 'info' | 'warn'; message: string; fields: Record<string, string> }

export function devnetNotice(config: Pick<Config, 'devnet'>, cwd = process.cwd()): StartupNotice | undefined {
  if (config.devnet) {
    return { level: 'info', message: 'devnet settings read', fields: { file: config.devnet.file, settings: config.devnet.settings.join(',') } }
  }
  const here = resolve(cwd, '.env.devnet')
  if (!existsSync(here)) return undefined
  return {
    level: 'warn',
    message: 'devnet settings not read',
    fields: { file: here, howTo: '`npm start` reads .env.devnet; restart Slipway after `npm run devnet` (without it, the sandbox uses the public testnets)' },
  }
}
