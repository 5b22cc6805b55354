export {}
/** `npm run bench`: every benchmark under scripts/bench/, one after another. */
const suites = ['scripts/bench/core.ts', 'scripts/bench/webhooks.ts', 'scripts/bench/transactions.ts', 'scripts/bench/binary.ts', 'scripts/bench/swaps.ts', 'scripts/bench/mpc.ts', 'scripts/bench/agent-payments.ts', 'scripts/bench/scale.ts', 'scripts/bench/hrana-protocols.ts']
for (const file of suites) {
  console.log(`\n=== ${file}`)
  const proc = Bun.spawn([process.execPath, file], { stdout: 'inherit', stderr: 'inherit' })
  if ((await proc.exited) !== 0) process.exitCode = 1
}
