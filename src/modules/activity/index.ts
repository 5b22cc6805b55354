/**
 * The activity module's face: the tenant's log of who did what. Other modules record an
 * entry in their own write transaction and operators list them; nothing else of the
 * module is reachable from outside.
 */
export { listActivity, recordActivity } from './log'
export type { ActivityEntry } from './log'
