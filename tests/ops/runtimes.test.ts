import { chainRoutesSuite, coreHttpSuite } from '@tests/helpers/core-http-suite'
import { startProcess } from '@tests/helpers/process'
import { ensureDeno } from '../../scripts/deno'

// The same HTTP behaviour from the Bun process and from the Deno process.
coreHttpSuite('under Bun (npm start)', () => startProcess([process.execPath, 'src/index.ts']))

// Deno is installed on first use (tools/deno, scripts/deno.ts); scripts/test.ts and .ci/run install it first.
const deno = ensureDeno()
const underDeno = [deno, 'run', '--allow-all', '--sloppy-imports', 'src/deno.ts']
coreHttpSuite('under Deno (npm run start:deno)', () => startProcess(underDeno, { env: { SLIPWAY_ROLE: 'api' }, timeoutMs: 60_000 }), 90_000)
chainRoutesSuite('under Deno, the code loaded on first use', () => startProcess(underDeno, { env: { SLIPWAY_ROLE: 'api', RPC_URL_SOLANA: 'http://127.0.0.1:9' }, timeoutMs: 60_000 }), 90_000)
