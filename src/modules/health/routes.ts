import { Elysia, t } from 'elysia'

export function healthRoutes() {
  return new Elysia({ detail: { tags: ['Health'] } }).get('/health', () => ({ status: 'ok' as const }), {
    response: { 200: t.Object({ status: t.Literal('ok') }) },
    detail: { operationId: 'health', summary: 'Liveness probe', description: 'No credentials; touches nothing but the process.' },
  })
}
