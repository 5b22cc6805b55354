/** What a service verb gets from a route: the dependencies, who acts, and the request id. Never the HTTP context. */
import type { Deps } from '../deps'
import type { Actor } from '../http/auth'

export interface Ctx {
  deps: Deps
  actor: Actor
  requestId: string
}

/** Offset pagination as the spec's list endpoints answer it. */
export function page<T>(data: T[], total: number, limit: number, offset: number) {
  return { data, pagination: { total, limit, offset, hasMore: offset + data.length < total } }
}
