// Bare Bun.serve answering the same JSON as bare.ts, in a process that has loaded Slipway's code
// (src/main.ts and everything it imports, nothing run): what the code alone costs the engine's
// collections (scripts/bench/health-tail.ts).
export {}

await import('../../../src/main')
Bun.gc(true)
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: () => Response.json({ status: 'ok' }) })
console.log(`ready ${server.port}`)
