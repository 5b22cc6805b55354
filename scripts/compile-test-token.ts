/**
 * Compiles tests/fixtures/test-token.sol with solc from npm (offline) into
 * tests/fixtures/test-token.json, so test runs do not spend a second in solc.
 * Run: ./node_modules/.bin/bun scripts/compile-test-token.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import solc from 'solc'

const source = readFileSync('tests/fixtures/test-token.sol', 'utf8')
const input = {
  language: 'Solidity',
  sources: { 'test-token.sol': { content: source } },
  settings: { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
}
const out = JSON.parse(solc.compile(JSON.stringify(input)))
const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
const c = out.contracts['test-token.sol'].TestToken
writeFileSync('tests/fixtures/test-token.json', JSON.stringify({ compiler: solc.version(), evmVersion: 'paris', abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }, null, 2) + '\n')
console.log('wrote tests/fixtures/test-token.json')
