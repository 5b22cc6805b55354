import { existsSync } from 'node:fs'
import { coreHttpSuite } from '@tests/helpers/core-http-suite'
import { startProcess } from '@tests/helpers/process'

// The same HTTP behaviour from the Bun process and from the Deno process.
coreHttpSuite('under Bun (npm start)', () => startProcess([process.execPath, 'src/index.ts']))

const deno = 'node_modules/.bin/deno'
if (existsSync(deno)) {
  coreHttpSuite('under Deno (npm run start:deno)', () => startProcess([deno, 'run', '--allow-all', '--sloppy-imports', 'src/deno.ts'], { env: { SLIPWAY_ROLE: 'api' }, timeoutMs: 60_000 }), 90_000)
}
