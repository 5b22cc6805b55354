/** The notifications module's face: notify a user (in the caller's write), its jobs and its routes. */
export { notify } from './notify'
export { registerNotificationJobs } from './jobs'
export { notificationRoutes } from './routes'
