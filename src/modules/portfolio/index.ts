/** The portfolio module's face: its jobs, its routes, and the native coin's USD price (gas sponsorship's limits in USD). */
export { registerPortfolioJobs } from './jobs'
export { portfolioRoutes } from './routes'
export { nativeUsdPrice } from './native-price'
