/**
 * Compiles the test contracts in tests/fixtures (the ERC-20 and a Multicall3 subset)
 * with solc from npm (offline) into JSON fixtures beside them, so test runs do not
 * spend a second in solc. Run: ./node_modules/.bin/bun scripts/compile-test-token.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import solc from 'solc'

const EVM_VERSION = 'prague'

for (const [file, contract] of [['test-token', 'TestToken'], ['multicall3', 'Multicall3']] as const) {
  const input = {
    language: 'Solidity',
    sources: { [`${file}.sol`]: { content: readFileSync(`tests/fixtures/${file}.sol`, 'utf8') } },
    // the fork the devnet and test nodes run (anvil: Prague), as on mainnet today
    settings: { evmVersion: EVM_VERSION, optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const c = out.contracts[`${file}.sol`][contract]
  writeFileSync(`tests/fixtures/${file}.json`, JSON.stringify({
    compiler: solc.version(), evmVersion: EVM_VERSION, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
  }, null, 2) + '\n')
  console.log(`wrote tests/fixtures/${file}.json`)
}
