import { t } from 'elysia'
import { iso } from '../../lib/clock'
import type { UserRow } from './repo'

export const UserProfile = t.Object({
  id: t.String({ format: 'uuid' }),
  tenantId: t.Union([t.String(), t.Null()]),
  username: t.String(),
  email: t.Union([t.String(), t.Null()]),
  displayName: t.Union([t.String(), t.Null()]),
  role: t.Union([t.Literal('user'), t.Literal('tenantadmin'), t.Literal('admin')]),
  status: t.Union([t.Literal('active'), t.Literal('deleted')]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'User' })

export type UserView = ReturnType<typeof userView>

export function userView(u: Pick<UserRow, 'id' | 'tenantId' | 'username' | 'email' | 'displayName' | 'role' | 'status' | 'createdAt' | 'updatedAt'>) {
  return {
    id: u.id,
    tenantId: u.tenantId,
    username: u.username,
    email: u.email,
    displayName: u.displayName,
    role: u.role,
    status: u.status,
    createdAt: iso(u.createdAt),
    updatedAt: iso(u.updatedAt),
  }
}
