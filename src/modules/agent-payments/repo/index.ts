/**
 * The only files that read or write the agent payments tables (this folder, by concern). Every
 * function takes the tenant after the executor and filters by it, except `findKeyByHash`: a
 * presented key is what tells which tenant it belongs to (its hash is unique across tenants).
 */
export type { AgentRow, ApiKeyRow, ApprovalRow, AuditRow, ExecutionRow, MerchantRow, PolicyRow } from '../schema'
export * from './agents'
export * from './merchants'
export * from './mandates'
export * from './executions'
export * from './spend'
export * from './reserve-conditions'
export * from './execution-reads'
