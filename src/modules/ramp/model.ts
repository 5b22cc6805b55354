/** Request and answer schemas of the bank ramp routes, gathered from the files of each concern. */
export * from './payin-model'
export * from './payout-model'
export * from './address-model'
