import { existsSync } from 'node:fs'
import { chainRoutesSuite, coreHttpSuite } from '@tests/helpers/core-http-suite'
import { startProcess } from '@tests/helpers/process'

// The same HTTP behaviour from the Bun process and from the Deno process.
coreHttpSuite('under Bun (npm start)', () => startProcess([process.execPath, 'src/index.ts']))

const deno = 'node_modules/.bin/deno'
if (existsSync(deno)) {
  coreHttpSuite('under Deno (npm run start:deno)', () => startProcess([deno, 'run', '--allow-all', '--sloppy-imports', 'src/deno.ts'], { env: { SLIPWAY_ROLE: 'api' }, timeoutMs: 60_000 }), 90_000)
  chainRoutesSuite('under Deno, the code loaded on first use', () => startProcess([deno, 'run', '--allow-all', '--sloppy-imports', 'src/deno.ts'], { env: { SLIPWAY_ROLE: 'api', RPC_URL_SOLANA: 'http://127.0.0.1:9' }, timeoutMs: 60_000 }), 90_000)
}
