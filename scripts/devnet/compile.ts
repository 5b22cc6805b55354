/**
 * Compiles the devnet's contracts (scripts/devnet/*.sol) with solc from npm (offline) into
 * JSON beside them, so `npm run devnet` starts without solc. Run after editing a contract:
 * ./node_modules/.bin/bun scripts/devnet/compile.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import solc from 'solc'

const EVM_VERSION = 'prague'

const require = createRequire(import.meta.url)
/** imports from npm packages (SlipwayPaymaster.sol: @account-abstraction/contracts and @openzeppelin/contracts, dev dependencies) */
function findImports(path: string) {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') }
  } catch {
    return { error: `not found: ${path}` }
  }
}

/** each source file and the contracts written from it (SandboxUSD.sol holds both test stablecoins) */
const SOURCES: Record<string, string[]> = {
  'SandboxUSD.sol': ['SandboxUSD', 'SandboxEURe'],
  'SandboxRouter.sol': ['SandboxRouter'],
  'SandboxAavePool.sol': ['SandboxAavePool'],
  'SlipwayPaymaster.sol': ['SlipwayPaymaster'],
}

for (const [source, contracts] of Object.entries(SOURCES)) {
  const input = {
    language: 'Solidity',
    sources: { [source]: { content: readFileSync(join(import.meta.dir, source), 'utf8') } },
    // the fork the devnet and test nodes run (anvil: Prague), as on mainnet today
    settings: { evmVersion: EVM_VERSION, optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  for (const contract of contracts) {
    const c = out.contracts[source][contract]
    writeFileSync(join(import.meta.dir, `${contract}.json`), JSON.stringify({
      compiler: solc.version(), evmVersion: EVM_VERSION, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    }, null, 2) + '\n')
    console.log(`wrote scripts/devnet/${contract}.json`)
  }
}
