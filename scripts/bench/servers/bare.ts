// Baseline: bare Bun.serve answering a fixed JSON body.
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: () => Response.json({ status: 'ok' }) })
console.log(`ready ${server.port}`)
