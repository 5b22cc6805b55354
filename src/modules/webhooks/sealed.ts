/** The webhook secrets, for `slipway reseal` (the columns are described beside the table, in repo.ts). */
export { sealedColumns } from './repo'
