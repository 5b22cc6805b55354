/** The activity log's verbs: an entry recorded in the caller's write transaction, and a tenant's entries listed for operators. */
import * as repo from './repo'

export type { ActivityEntry } from './repo'

export const recordActivity = repo.recordActivity
export const listActivity = repo.listActivity
