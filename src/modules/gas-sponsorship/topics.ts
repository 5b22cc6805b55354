/** The gas sponsorship module's job topics (apart from the jobs' code, which loads viem). */
export const SETTLE_TOPIC = 'gas.sponsorship.settle'
