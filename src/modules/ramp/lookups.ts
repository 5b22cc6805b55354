/** What the operators' sandbox reset (`slipway sandbox reset-user`) asks of the bank ramp's records of one user. */
import * as repo from './repo'

export const unfinishedPayouts = repo.unfinishedPayouts
export const findCustomer = repo.findCustomer
export const deleteUserRecords = repo.deleteUserRecords
