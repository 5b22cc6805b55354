/** The health module's face: its routes. */
export { healthRoutes } from './routes'
