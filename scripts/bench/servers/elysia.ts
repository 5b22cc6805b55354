// Baseline: a bare Elysia app answering the same JSON as bare Bun.serve, served the way
// Slipway serves its app (Bun.serve with the app's fetch): the cost of Elysia itself.
import { Elysia } from 'elysia'

const app = new Elysia().get('/health', () => ({ status: 'ok' }))
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT), fetch: (r) => app.fetch(r) })
console.log(`ready ${server.port}`)
