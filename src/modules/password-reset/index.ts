/** The password reset module's face: its jobs and its routes. */
export { registerPasswordResetJobs } from './jobs'
export { passwordResetRoutes } from './routes'
