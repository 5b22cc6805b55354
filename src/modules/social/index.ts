/** The social sign-in module's face: the providers a user has linked, and the routes. */
export { providersOf } from './lookups'
export { socialRoutes } from './routes'
