/** The health module's face: its routes, and the liveness answer the server's own router gives. */
export { healthRoutes, LIVENESS } from './routes'
