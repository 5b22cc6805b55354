/** The portfolio module's face: its jobs and its routes. */
export { registerPortfolioJobs } from './jobs'
export { portfolioRoutes } from './routes'
