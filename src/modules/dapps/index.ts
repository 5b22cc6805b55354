/** The dApps module's face: its routes (the verbs load with the first dApp request). */
export { dappRoutes } from './routes'
