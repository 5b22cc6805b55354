/** The mail module's face: queue a mail in the caller's write, its locales, its job and its sealed columns. */
export { queueMail } from './service'
export type { Locale } from './templates'
export { registerMailJobs } from './jobs'
export { sealedColumns } from './sealed'
