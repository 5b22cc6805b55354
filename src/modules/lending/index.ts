/** The lending module's face: its jobs and its routes (the verbs load with the first lending request). */
export { registerLendingJobs } from './jobs'
export { lendingRoutes } from './routes'
