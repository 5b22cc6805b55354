/** Debian's Chromium for page tests, driven by playwright-core; tests skip with a message when it is absent. */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const chromiumAvailable = existsSync(CHROMIUM)

export function warnIfNoChromium(what: string) {
  if (!chromiumAvailable) console.warn(`[skip] ${what}: ${CHROMIUM} not found (apt-get install -y chromium)`)
}

/** Headless, no sandbox (CI runs as root), and nothing of its own reaching the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}
