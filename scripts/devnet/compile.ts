/**
 * Compiles the devnet's contracts (scripts/devnet/*.sol) with solc from npm (offline) into
 * JSON beside them, so `npm run devnet` starts without solc. Run after editing a contract:
 * ./node_modules/.bin/bun scripts/devnet/compile.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import solc from 'solc'

for (const contract of ['SandboxUSD']) {
  const file = join(import.meta.dir, `${contract}.sol`)
  const input = {
    language: 'Solidity',
    sources: { [`${contract}.sol`]: { content: readFileSync(file, 'utf8') } },
    // ganache 7 stops at Shanghai; paris avoids PUSH0.
    settings: { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const c = out.contracts[`${contract}.sol`][contract]
  writeFileSync(join(import.meta.dir, `${contract}.json`), JSON.stringify({
    compiler: solc.version(), evmVersion: 'paris', abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
  }, null, 2) + '\n')
  console.log(`wrote scripts/devnet/${contract}.json`)
}
